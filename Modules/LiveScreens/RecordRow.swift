import Domain

// MARK: - RecordRow

/// One record of a list whose records are Sync's (a change waiting, a conflict), as the
/// command that wires the list says it reads: the record it names and a line about it.
public struct RecordRow: Hashable, Sendable {
    public let collection: CollectionName
    public let id: String
    public let text: String

    public init(collection: CollectionName, id: String, text: String) {
        self.collection = collection
        self.id = id
        self.text = text
    }

    /// The row as a list shows it: `books/b-42  update  Dune`.
    var line: String { "\(collection.rawValue)/\(id)  \(text)" }
}
