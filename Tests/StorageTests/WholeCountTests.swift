import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

@Suite("Counting a whole collection")
struct WholeCountTests {
    /// Books, notes and tasks, with a book and a note waiting for a pushed deletion and a
    /// book created locally (no server timestamp yet).
    private func store() throws -> ShelfStore {
        let store = try ShelfStore.testStore()
        try store.seed((0..<7).map { Wire.remoteBook("b-\($0)", title: "Book \($0)", lastModified: Int64(1000 + $0)) }, to: .books)
        try store.seed(
            (0..<4).map { RawRecord(id: "n-\($0)", lastModified: Int64(2000 + $0), json: Wire.note("n-\($0)", title: "Note \($0)")) },
            to: .notes)
        try store.seed([RawRecord(id: "t-0", lastModified: 3000, json: Wire.task("t-0", title: "Task"))], to: .tasks)
        try store.write { transaction in
            _ = try transaction.deleteLocal(.books, id: "b-3")
            _ = try transaction.deleteLocal(.notes, id: "n-1")
            _ = try transaction.saveLocal(.books, id: "b-new", json: Wire.book("b-new", title: "New", author: "Me"))
        }
        return store
    }

    @Test(arguments: CollectionName.allCases)
    func everyRecordLessTheOthersIsTheCollectionsOwnRange(_ collection: CollectionName) throws {
        let store = try store()

        let (counted, byOthers, byRange) = try store.read { reader in
            (try reader.count(RecordQuery(collection)),
             try reader.wholeCount(collection, otherRecordsLimit: 1_000),
             try reader.wholeCount(collection, otherRecordsLimit: 0))
        }

        let expected = [CollectionName.books: 7, .notes: 3, .tasks: 1][collection] ?? 0
        #expect(counted == expected)
        #expect(byOthers == expected)
        #expect(byRange == expected)
    }

    @Test func otherCollectionsAtTheLimitSendTheCountToTheRange() throws {
        let store = try store()
        // 5 notes and tasks rows: a limit of 5 is reached, 6 is not; both count the same.
        let counts = try store.read { reader in
            [try reader.wholeCount(.books, otherRecordsLimit: 5), try reader.wholeCount(.books, otherRecordsLimit: 6)]
        }
        #expect(counts == [7, 7])
    }

    /// Every count reads an index, never the table's rows.
    @Test func everyCountReadsAnIndex() throws {
        let store = try store()

        let plans = try store.read { try $0.wholeCountPlans() }

        let onRecords = plans.filter { $0.contains("records") }
        #expect(onRecords.count == 6, "\(plans)")
        for step in onRecords {
            #expect(step.contains("USING COVERING INDEX"), "\(plans)")
        }
    }
}
