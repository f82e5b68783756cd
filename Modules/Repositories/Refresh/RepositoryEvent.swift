import Domain
import RecordDTOs

// MARK: - RepositoryEvent

/// What a repository did about the network, for logs and for tests that need to know
/// a read has joined a refresh before letting the refresh finish.
public enum RepositoryEvent: Hashable, Sendable {
    /// A refresh was asked of the `CollectionRefreshing` port. `background` when it runs
    /// behind a read that was already answered (stale-while-revalidate).
    case refreshStarted(CollectionName, background: Bool)
    /// A read waits for the refresh already in flight instead of starting another.
    case refreshJoined(CollectionName)
    /// The refresh ended; the in-memory copy follows the store from now on.
    case refreshFinished(CollectionName, succeeded: Bool)
    /// A read met stored records it cannot map to Domain values (a field missing or of
    /// the wrong type, a value a Domain rule refuses). They are left out of the answer
    /// and left in the store untouched — a later version may read them — and told
    /// here, so nobody loses them silently.
    case unreadableRecords(CollectionName, [UnreadableRecord])
}
