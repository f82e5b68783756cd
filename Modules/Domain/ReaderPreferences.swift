// MARK: - ReaderPreferences

/// The reader's favorites and reading settings: what the `preferences` collection syncs
/// between devices. (The router path is not part of it: where a device was is that
/// device's own business, and stays in its local store.)
///
/// On the server this is one record (`ReaderPreferences.recordID`) whose fields are
/// merged one by one like every other record's: each setting is a field, and so is each
/// favorite, so favoriting a book on one device and changing the goal — or favoriting
/// another book — on a second device both survive.
public struct ReaderPreferences: Hashable, Sendable {
    /// The id of the one preferences record of an account.
    public static let recordID = "reader"

    public var favorites: Set<Book.ID>
    public var settings: ReadingSettings

    public init(favorites: Set<Book.ID> = [], settings: ReadingSettings = .default) {
        self.favorites = favorites
        self.settings = settings
    }
}
