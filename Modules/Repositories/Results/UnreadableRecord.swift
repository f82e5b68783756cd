import Domain

// MARK: - UnreadableRecord

/// A stored record that does not map to its Domain value.
public struct UnreadableRecord: Hashable, Sendable, CustomStringConvertible {
    public var collection: CollectionName
    public var id: String
    /// Which field and why, e.g. `data (id b1).title: title must not be empty`.
    public var reason: String

    public init(collection: CollectionName, id: String, reason: String) {
        self.collection = collection
        self.id = id
        self.reason = reason
    }

    public var description: String {
        "\(collection.rawValue) record '\(id)' cannot be read: \(reason)"
    }
}
