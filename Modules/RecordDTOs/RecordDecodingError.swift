import Domain

// MARK: - RecordDecodingError

/// A record that did not read as its DTO, or whose value a Domain rule refused: which
/// record and which field, in the words of `DecodingErrorText`.
public struct RecordDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where: `data (id b1).title`, `data[3] (id b7)`.
    public var path: String
    public var message: String
    /// The domain rule the value broke, when that is what failed.
    public var domainError: DomainError?

    public init(path: String, message: String, domainError: DomainError? = nil) {
        self.path = path
        self.message = message
        self.domainError = domainError
    }

    public var description: String {
        path.isEmpty ? message : "\(path): \(message)"
    }
}

// MARK: - RecordEncodingError

/// A value that could not be written in its record's wire shape.
public struct RecordEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var collection: CollectionName
    public var id: String
    public var reason: String

    public var description: String {
        "\(collection) record \(id) cannot be written as JSON: \(reason)"
    }
}
