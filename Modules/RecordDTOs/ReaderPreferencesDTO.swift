import Domain
import Foundation
import Records

// MARK: - ReaderPreferencesDTO

/// The `preferences` record `reader`:
/// `{id, show_finished?, daily_goal_minutes?, "favorite:<book id>": true …, last_modified}`.
///
/// Every setting and every favorite is a top-level field of its own, because the sync
/// engine merges records field by field: two devices that favorite different books, or
/// one that favorites while the other changes the goal, change different fields and
/// both changes survive. A setting that is absent has its default value; a favorite is
/// removed by removing its field.
public struct ReaderPreferencesDTO: RecordDTO, Hashable {
    public static let collection = CollectionName.preferences

    public var id: String
    public var showFinished: Bool?
    public var dailyGoalMinutes: Int?
    public var favorites: Set<String>
    public var lastModified: Int?

    public init(
        id: String = ReaderPreferences.recordID, showFinished: Bool? = nil, dailyGoalMinutes: Int? = nil,
        favorites: Set<String> = [], lastModified: Int? = nil
    ) {
        self.id = id
        self.showFinished = showFinished
        self.dailyGoalMinutes = dailyGoalMinutes
        self.favorites = favorites
        self.lastModified = lastModified
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads the known fields; other fields (from a newer client) are left to the
    /// stored JSON, which edits keep. A favorite field whose value is not `true` does
    /// not count as a favorite.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        id = try container.decode(String.self, forKey: Key("id"))
        showFinished = try container.decodeIfPresent(Bool.self, forKey: Key(PreferenceFields.showFinished))
        dailyGoalMinutes = try container.decodeIfPresent(Int.self, forKey: Key(PreferenceFields.dailyGoalMinutes))
        lastModified = try container.decodeIfPresent(Int.self, forKey: Key("last_modified"))
        var favorites: Set<String> = []
        for key in container.allKeys where key.stringValue.hasPrefix(PreferenceFields.favoritePrefix) {
            if (try? container.decode(Bool.self, forKey: key)) == true {
                favorites.insert(String(key.stringValue.dropFirst(PreferenceFields.favoritePrefix.count)))
            }
        }
        self.favorites = favorites
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: Key("id"))
        try container.encodeIfPresent(showFinished, forKey: Key(PreferenceFields.showFinished))
        try container.encodeIfPresent(dailyGoalMinutes, forKey: Key(PreferenceFields.dailyGoalMinutes))
        for favorite in favorites.sorted() { try container.encode(true, forKey: Key(PreferenceFields.favorite(favorite))) }
        try container.encodeIfPresent(lastModified, forKey: Key("last_modified"))
    }

    /// - Throws: `DomainError` for a goal out of range or a favorite that is not a valid id.
    public func toDomain() throws(DomainError) -> ReaderPreferences {
        var settings = ReadingSettings.default
        if let showFinished { settings.showFinished = showFinished }
        if let dailyGoalMinutes { settings.dailyGoal = try DailyGoal(minutes: dailyGoalMinutes) }
        var ids: Set<Book.ID> = []
        for favorite in favorites { ids.insert(try RecordID.validate(favorite)) }
        return ReaderPreferences(favorites: ids, settings: settings)
    }
}
