import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

/// A pulled record carries the members its columns need, read by the page scanner; the
/// store uses them instead of reading the record again, and must store exactly the rows
/// it stores from the bytes alone.
@Suite("Indexed members from the page scanner")
struct ScannedIndexingTests {
    private static let page = Data(#"""
        {"data": [
          {"id":"b1","title":"L'\u00c9tranger","author_name":"Albert CAMUS","finished":true,"last_modified":10},
          {"id":"b2","\u0074itle":"Ünï","author_name":null,"finished":"no","last_modified":11,"tags":[{"title":"x"}]},
          {"id":"b3","title":"Second","last_modified":12},
          {"id":"b4","body":"Body text","title":"A note-shaped book","last_modified":13}
        ]}
        """#.utf8)

    private func rows(_ store: ShelfStore) throws -> [String] {
        try store.read { reader in
            try reader.db.query(
                "SELECT collection, id, sort_key, search_text, complete, last_modified FROM records ORDER BY collection, id",
                operation: "read rows"
            ) { row in
                "\(row.text(0)) \(row.text(1)) [\(row.text(2))] [\(row.text(3))] \(String(describing: row.optionalBool(4))) \(row.int64(5))"
            }
        }
    }

    private func store(_ records: [RawRecord], in collection: CollectionName) throws -> ShelfStore {
        let store = try ShelfStore.testStore()
        try store.write { tx in try tx.storePulled(records, in: collection) }
        return store
    }

    @Test(arguments: [CollectionName.books, .notes, .tasks])
    func scannedMembersStoreTheRowsTheBytesStore(_ collection: CollectionName) throws {
        let scanned = try RecordListScanner.records(in: Self.page, maximumRecords: 10, indexingFor: collection)
        let plain = try RecordListScanner.records(in: Self.page, maximumRecords: 10)
        #expect(scanned.allSatisfy { $0.indexedFields?.collection == collection })
        #expect(try rows(store(scanned, in: collection)) == rows(store(plain, in: collection)))
    }

    @Test func membersReadForAnotherCollectionAreReadAgain() throws {
        // GIVEN a page scanned for notes (title and body kept), applied to books
        let forNotes = try RecordListScanner.records(in: Self.page, maximumRecords: 10, indexingFor: .notes)
        let plain = try RecordListScanner.records(in: Self.page, maximumRecords: 10)

        // THEN the books' columns come from the books' members (author_name, finished)
        let stored = try rows(store(forNotes, in: .books))
        #expect(stored == (try rows(store(plain, in: .books))))
        #expect(stored.first == "books b1 [l'etranger\(SearchText.fieldSeparator)albert camus] [] Optional(true) 10")
    }
}
