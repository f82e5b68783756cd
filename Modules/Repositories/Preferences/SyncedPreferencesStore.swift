import Domain
import Foundation
import RecordDTOs
import Records
import Storage
import Synchronization

// MARK: - SyncedPreferencesStore

/// The reader's favorites and reading settings as synced data: the `preferences`
/// record `reader` (see `ReaderPreferencesDTO`), written through the outbox like any
/// other edit, so `shelf sync` sends it and another device's changes merge into it
/// field by field. The router path stays on this device (`SQLitePreferencesStore`).
///
/// A change writes only the fields it changes: a setting is written when its value
/// changes, a favorite's field is added or removed. So a device that never touched the
/// goal never sends one, and cannot undo another device's choice.
///
/// The first use hands over what the reader set before preferences synced
/// (`StoreTransaction.takeLocalPreferencesForSync`), once.
public final class SyncedPreferencesStore: PreferencesStore {
    private let store: ShelfStore
    private let local: SQLitePreferencesStore
    /// Whether the hand-over of older local preferences is known to be done.
    private let carriedOver = Mutex(false)

    public init(store: ShelfStore) {
        self.store = store
        local = SQLitePreferencesStore(store: store)
    }

    // MARK: PreferencesStore

    /// The favorites, even when a setting next to them breaks a rule (that is the
    /// settings' error to report, not a reason to hide the favorites).
    public func favorites() throws -> Set<Book.ID> {
        try carryOverIfNeeded()
        return try store.read { reader in
            guard let record = try reader.record(.preferences, id: ReaderPreferences.recordID) else { return [] }
            guard let fields = try? WireJSON.fields(record.json) else {
                throw RepositoryError.unreadableRecord(
                    UnreadableRecord(collection: .preferences, id: record.id, reason: "its stored JSON is not an object"))
            }
            return Self.favorites(in: fields).filter { (try? RecordID.validate($0)) != nil }
        }
    }

    public func setFavorites(_ ids: Set<Book.ID>) throws {
        try carryOverIfNeeded()
        try store.edit { transaction in
            try Self.update(in: transaction) { fields in
                let current = Self.favorites(in: fields)
                for id in current.subtracting(ids) {
                    fields.removeValue(forKey: PreferenceFields.favorite(id))
                }
                for id in ids.subtracting(current) {
                    fields[PreferenceFields.favorite(id)] = .bool(true)
                }
            }
        }
    }

    public func readingSettings() throws -> ReadingSettings {
        try preferences().settings
    }

    public func setReadingSettings(_ settings: ReadingSettings) throws {
        try carryOverIfNeeded()
        try store.edit { transaction in
            try Self.update(in: transaction) { fields in Self.write(settings, into: &fields) }
        }
    }

    public func routerPath() throws -> [Route] {
        try local.routerPath()
    }

    public func setRouterPath(_ path: [Route]) throws {
        try local.setRouterPath(path)
    }

    // MARK: Reading

    /// Favorites and settings as the store holds them now.
    /// - Throws: `RepositoryError.unreadableRecord` when the record breaks a rule (a goal
    ///   of 300 written by another client): it is reported, never replaced by defaults.
    public func preferences() throws -> ReaderPreferences {
        try carryOverIfNeeded()
        return try store.read { reader in try Self.current(in: reader) }
    }

    static func current(in reader: StoreReader) throws -> ReaderPreferences {
        guard let record = try reader.record(.preferences, id: ReaderPreferences.recordID) else {
            return ReaderPreferences()
        }
        let raw = RawRecord(id: record.id, lastModified: record.lastModified ?? 0, json: record.json)
        do {
            return try RecordDecoding.decode(ReaderPreferencesDTO.self, from: raw).value
        } catch {
            throw RepositoryError.unreadableRecord(
                UnreadableRecord(collection: .preferences, id: record.id, reason: error.description))
        }
    }

    // MARK: Writing

    /// Changes the record's fields inside `transaction`; writes (and queues) it only
    /// when a field changed. Fields this Shelf does not know are kept.
    ///
    /// NB: changes work on the fields, not on the decoded preferences, so a record that
    /// breaks a rule (a goal of 300 from another client) can still be repaired by
    /// setting the goal, and favorites can still change next to it.
    static func update(in transaction: StoreTransaction, _ change: (inout [String: JSONValue]) throws -> Void) throws {
        let id = ReaderPreferences.recordID
        let existing = try transaction.record(.preferences, id: id)
        var fields: [String: JSONValue] = [:]
        if let existing {
            guard let object = try? WireJSON.fields(existing.json) else {
                throw RepositoryError.unreadableRecord(
                    UnreadableRecord(collection: .preferences, id: id, reason: "its stored JSON is not an object"))
            }
            fields = object
        }
        ServerOwnedFields.removeStamp(from: &fields)
        let before = fields
        try change(&fields)
        guard fields != before || existing == nil && !fields.isEmpty else { return }
        fields["id"] = .string(id)
        try transaction.saveLocal(.preferences, id: id, json: try WireJSON.data(fields))
    }

    /// Writes the settings whose value in `fields` (absent: the default) differs from
    /// `settings` — and only those.
    static func write(_ settings: ReadingSettings, into fields: inout [String: JSONValue]) {
        // NB: a stored value of the wrong type counts as different, so it gets repaired.
        let storedShowFinished = fields[PreferenceFields.showFinished]
        let showFinished = storedShowFinished == nil ? ReadingSettings.default.showFinished : storedShowFinished?.boolValue
        if settings.showFinished != showFinished {
            fields[PreferenceFields.showFinished] = .bool(settings.showFinished)
        }
        let storedGoal = fields[PreferenceFields.dailyGoalMinutes]
        let goal = storedGoal == nil ? ReadingSettings.default.dailyGoal.minutes : storedGoal?.intValue
        if settings.dailyGoal.minutes != goal {
            fields[PreferenceFields.dailyGoalMinutes] = .number(Double(settings.dailyGoal.minutes))
        }
    }

    /// The favorites a record's fields hold, read leniently (an invalid id is not one).
    static func favorites(in fields: [String: JSONValue]) -> Set<Book.ID> {
        var ids: Set<Book.ID> = []
        for (name, value) in fields where name.hasPrefix(PreferenceFields.favoritePrefix) && value == .bool(true) {
            ids.insert(String(name.dropFirst(PreferenceFields.favoritePrefix.count)))
        }
        return ids
    }

    /// Removes `bookID` from the favorites inside `transaction` (a removed book's
    /// favorite disappears with it). - Returns: whether it was one.
    @discardableResult
    static func removeFavorite(_ bookID: Book.ID, in transaction: StoreTransaction) throws -> Bool {
        var removed = false
        try update(in: transaction) { fields in
            removed = fields.removeValue(forKey: PreferenceFields.favorite(bookID)) != nil
        }
        return removed
    }

    // MARK: Hand-over

    /// Hands older local favorites and settings over to the synced record, once: a
    /// look at the store, and one transaction the first time.
    public func carryOverIfNeeded() throws {
        guard !carriedOver.withLock({ $0 }) else { return }
        try Self.carryOver(in: store)
        carriedOver.withLock { $0 = true }
    }

    /// What `carryOverIfNeeded` does, for whoever opens a store to sync it (both apps,
    /// right after building an `AccountSync`), so favorites and settings kept on this
    /// device before they synced join the synced record before the first run sends
    /// anything. Best effort there (`try?`): a value that no longer decodes stays where
    /// it is, and the CLI reports it when it reads the preferences; the sync of
    /// everything else must not wait for it.
    public static func carryOver(in store: ShelfStore) throws {
        guard try store.read({ reader in try reader.hasLocalPreferencesToCarryOver() }) else { return }
        try store.write { transaction in
            guard let local = try transaction.takeLocalPreferencesForSync() else { return }
            try update(in: transaction) { fields in
                for id in local.favorites {
                    fields[PreferenceFields.favorite(id)] = .bool(true)
                }
                if let settings = local.settings { write(settings, into: &fields) }
            }
        }
    }
}
