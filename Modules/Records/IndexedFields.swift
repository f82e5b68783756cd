import Vocabulary

// MARK: - IndexedFields

/// A record's indexed members (`RecordIndexing.wireNames`), read by the scanner that
/// found the record, and the collection whose names they were read for: a store
/// applying the record to another collection reads its own members instead.
///
/// They let a pulled page's records be read once: `RecordListScanner` keeps these
/// members of each record while it finds the record's bounds, and the store does not
/// scan the record again.
public struct IndexedFields: Sendable {
    public var collection: CollectionName
    public var fields: WireFields

    public init(collection: CollectionName, fields: WireFields) {
        self.collection = collection
        self.fields = fields
    }
}
