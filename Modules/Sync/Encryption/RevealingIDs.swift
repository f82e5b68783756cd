import Domain
import Foundation
import Records
import Storage

// MARK: - Ids that reveal what a record is

/// An import names records after their source: `gr-<Goodreads Book Id>`, `cal-<Calibre
/// id>`, and the reviews `…-review`. On an encrypted account such an id tells the server
/// which book the reader has, so imports there name records by keyed ids
/// (`KeyedIdentifier`); `enable` renames the ones made before (`SyncRules.renameRevealingIDs`).
public enum RevealingIDs {
    /// The prefixes of the ids an import makes from its source.
    static let prefixes = ["gr-", "cal-"]

    /// Whether `id` is one an import made from its source.
    public static func reveals(_ id: String) -> Bool {
        prefixes.contains { id.hasPrefix($0) }
    }

    /// The collections whose ids an import makes from its source.
    static let collections: [CollectionName] = [.books, .notes]

    /// How many records of the store still have such an id (`shelf encryption status`).
    public static func count(in reader: StoreReader) throws(StorageError) -> Int {
        var count = 0
        for collection in collections {
            count += try reader.rows(of: collection).filter { !$0.isDeleted && reveals($0.id) }.count
        }
        return count
    }
}

extension SyncRules {
    /// Renames every record whose id reveals its source to its keyed id: the record is
    /// created again under the new id (a new record: no lineage, no number) and the old
    /// one deleted — in the clear, as a Kinto tombstone, since it was never sealed, so the
    /// revealing id leaves the server's live records. Notes and reading sessions that name
    /// a renamed book, and favorites of it, follow.
    ///
    /// A record with a change in flight is left for a later `enable` (its old id may
    /// still be written by the request in flight), and counted by `RevealingIDs.count`.
    /// - Parameter keyed: the account's keyed ids (`AccountEncryption.importIDs`).
    /// - Returns: how many records were renamed.
    public func renameRevealingIDs(_ keyed: (String, CollectionName) -> String) throws(StorageError) -> Int {
        var renamedBooks: [String: String] = [:]
        var renamed = 0
        for collection in RevealingIDs.collections {
            for row in try tx.rows(of: collection) where !row.isDeleted && RevealingIDs.reveals(row.id) {
                guard try tx.outboxEntry(collection, id: row.id)?.isInFlight != true else { continue }
                let newID = keyed(row.id, collection)
                var fields = try Self.fields(row.json, collection: collection, id: row.id)
                fields["id"] = .string(newID)
                for bookkeeping in VersionFields.names.union(["last_modified"]) { fields.removeValue(forKey: bookkeeping) }
                if collection == .notes, case .string(let book)? = fields[WireNames.noteBook], RevealingIDs.reveals(book) {
                    fields[WireNames.noteBook] = .string(keyed(book, .books))
                }
                try tx.saveLocal(collection, id: newID, json: try Self.data(fields, collection: collection, id: newID))
                _ = try tx.deleteLocal(collection, id: row.id)
                if collection == .books { renamedBooks[row.id] = newID }
                renamed += 1
            }
        }
        guard !renamedBooks.isEmpty else { return renamed }
        try follow(renamedBooks, in: .notes, field: WireNames.noteBook)
        try follow(renamedBooks, in: .sessions, field: WireNames.sessionBook)
        try followFavorites(renamedBooks)
        return renamed
    }

    /// Points every record of `collection` whose `field` names a renamed book at its new id.
    private func follow(_ renamed: [String: String], in collection: CollectionName, field: String) throws(StorageError) {
        for row in try tx.rows(of: collection) where !row.isDeleted {
            var fields = try Self.fields(row.json, collection: collection, id: row.id)
            guard case .string(let book)? = fields[field], let newID = renamed[book] else { continue }
            fields[field] = .string(newID)
            ServerOwnedFields.removeStamp(from: &fields)
            try tx.saveLocal(collection, id: row.id, json: try Self.data(fields, collection: collection, id: row.id))
        }
    }

    /// Renames the favorite fields (`favorite:<book id>`) of renamed books.
    private func followFavorites(_ renamed: [String: String]) throws(StorageError) {
        let collection = CollectionName.preferences
        for row in try tx.rows(of: collection) where !row.isDeleted {
            var fields = try Self.fields(row.json, collection: collection, id: row.id)
            var changed = false
            for (old, new) in renamed {
                guard let value = fields.removeValue(forKey: PreferenceFields.favorite(old)) else { continue }
                fields[PreferenceFields.favorite(new)] = value
                changed = true
            }
            guard changed else { continue }
            ServerOwnedFields.removeStamp(from: &fields)
            try tx.saveLocal(collection, id: row.id, json: try Self.data(fields, collection: collection, id: row.id))
        }
    }

    private static func fields(_ json: Data, collection: CollectionName, id: String) throws(StorageError) -> [String: JSONValue] {
        do {
            return try WireJSON.fields(json)
        } catch {
            throw .invalidRecord(collection: collection, id: id, reason: "\(error)")
        }
    }

    private static func data(_ fields: [String: JSONValue], collection: CollectionName, id: String) throws(StorageError) -> Data {
        do {
            return try WireJSON.data(fields)
        } catch {
            throw .invalidRecord(collection: collection, id: id, reason: "its fields cannot be written as JSON")
        }
    }
}
