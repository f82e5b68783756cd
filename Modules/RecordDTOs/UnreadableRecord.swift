import Domain

// MARK: - UnreadableRecord

/// A stored record that does not map to its Domain value.
public struct UnreadableRecord: Error, Hashable, Sendable, CustomStringConvertible {
    public var collection: CollectionName
    public var id: String
    /// Which field and why, e.g. `data (id b1).title: title must not be empty`.
    public var reason: String

    public init(collection: CollectionName, id: String, reason: String) {
        self.collection = collection
        self.id = id
        self.reason = reason
    }

    /// A record of the local store that did not decode, its reason worded as
    /// "title: title must not be empty" rather than in the response-shaped words of a
    /// decoding failure: these bytes come from the local store, not from a response.
    public init(collection: CollectionName, id: String, failure: RecordDecodingError) {
        let prefix = "data (id \(id))"
        var field = failure.path.hasPrefix(prefix) ? String(failure.path.dropFirst(prefix.count)) : failure.path
        if field.hasPrefix(".") { field.removeFirst() }
        self.init(collection: collection, id: id, reason: field.isEmpty ? failure.message : "\(field): \(failure.message)")
    }

    public var description: String {
        "\(collection.rawValue) record '\(id)' cannot be read: \(reason)"
    }
}
