import RecordDTOs
import Storage

// MARK: - CollectionSnapshot

/// A whole collection as Domain values, in the store's listing order: the in-memory
/// copy a repository serves while it is current.
struct CollectionSnapshot<Mapping: RecordMapping>: Sendable {
    private(set) var values: [Mapping.Value]
    private(set) var unreadable: [UnreadableRecord]

    /// Decodes the records of one store read (already in listing order).
    init(records: [StoredRecord]) {
        (values, unreadable) = Mapping.decodeAll(records)
    }

    // MARK: Following local edits

    /// Puts a value just written where the store now lists it, replacing the old one.
    ///
    /// Finds the place by binary search, computing the sort key only of the values it
    /// probes, so an edit costs O(log n) keys and one O(n) move even at 100,000 values.
    mutating func upsert(_ value: Mapping.Value) {
        remove(id: value.id)
        let key = (key: Mapping.sortKey(of: value), id: value.id)
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            let probe = values[middle]
            if Mapping.listsBefore((Mapping.sortKey(of: probe), probe.id), key) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        values.insert(value, at: low)
    }

    /// Drops the value (and any unreadable record) with this id.
    mutating func remove(id: String) {
        if let index = values.firstIndex(where: { $0.id == id }) {
            values.remove(at: index)
        }
        unreadable.removeAll { $0.id == id }
    }
}
