import Domain
import RecordDTOs

// MARK: - RepositoryError

/// Why a repository refused a request of its own accord.
///
/// Other failures pass through with their own types: `DomainError` for a value a rule
/// refuses (nothing is written then), `StorageError` for the local store, and the
/// refresher's error for the network (see `CachedResult.refreshError`).
public enum RepositoryError: Error, Hashable, Sendable {
    /// An update or delete named a record the account's store does not have (or has
    /// only as a deletion waiting to be pushed).
    case notFound(CollectionName, id: String)
    /// A new record was given an id that a record of the collection already has.
    case idInUse(CollectionName, id: String)
    /// A stored record could not be read as its Domain value or as a JSON object, so
    /// it cannot be shown or changed safely.
    case unreadableRecord(UnreadableRecord)
}

extension RepositoryError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notFound(let collection, let id):
            return "no \(collection.recordNoun) with id '\(id)'"
        case .idInUse(let collection, let id):
            return "a \(collection.recordNoun) with id '\(id)' already exists"
        case .unreadableRecord(let record):
            return record.description
        }
    }
}
