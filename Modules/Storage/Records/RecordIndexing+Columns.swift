import Domain
import Records

// MARK: - RecordIndexing in the records table

extension RecordIndexing {
    /// The `search_text` column: empty where the sort key already holds it (schema v3).
    func storedSearchText(_ collection: CollectionName) -> String {
        Self.searchesSortKey(collection) ? "" : searchText
    }

    /// The column a search of `collection` reads.
    static func searchColumn(_ collection: CollectionName) -> String {
        searchesSortKey(collection) ? "sort_key" : "search_text"
    }
}
