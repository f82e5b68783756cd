import Domain
import Foundation
import Records
import Storage
import Testing
import TestSupport
@testable import Sync

// MARK: - PulledRecordsPlanTests

/// What a pulled page's records do, decided without a store: a table of pages and what
/// the store knows (waiting changes, remembered deletions, rows), each with the plan it
/// must give and the look-ups it may make.
@Suite struct PulledRecordsPlanTests {
    // MARK: The store, as the plan reads it

    /// What the store holds, and a record of every look-up the plan made.
    final class Store {
        var waiting: [String: OutboxEntry] = [:]
        var deletedRevisions: [String: String] = [:]
        var rows: Set<String> = []
        var lookedUp: [String] = []

        var lookups: PulledRecordsPlan.Lookups {
            PulledRecordsPlan.Lookups(
                anyWaiting: !waiting.isEmpty, anyDeletionRemembered: !deletedRevisions.isEmpty,
                waiting: { id in self.lookedUp.append("waiting \(id)"); return self.waiting[id] },
                deletedRevision: { id in self.lookedUp.append("deleted \(id)"); return self.deletedRevisions[id] },
                holdsRow: { id in self.lookedUp.append("row \(id)"); return self.rows.contains(id) })
        }
    }

    static func entry(_ id: String, _ kind: OutboxEntry.Kind = .update) -> OutboxEntry {
        OutboxEntry(sequence: 1, collection: .books, recordID: id, kind: kind, baseLastModified: 10,
                    createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0), revision: 1)
    }

    /// A book whose lineage ends with `revision`.
    static func book(_ id: String, revision: String? = nil, stamp: Int64 = 100) -> RawRecord {
        let lineage = revision.map { #","_shelf_revs":["older","\#($0)"]"# } ?? ""
        return RawRecord(id: id, lastModified: stamp,
                         json: Data(#"{"id":"\#(id)","title":"T","last_modified":\#(stamp)\#(lineage)}"#.utf8))
    }

    // MARK: The table

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let page: [RawRecord]
        let waiting: [String]
        let deletedRevisions: [String: String]
        let rows: Set<String>
        /// What happens to each record, in page order: "store", "hold" or "delete again".
        let steps: [String]
        /// The look-ups the plan may make, in order.
        let lookedUp: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "nothing waiting or remembered: the page is stored whole, nothing looked up",
             page: [book("a"), book("b"), Wire.tombstone("c", lastModified: 5)], waiting: [], deletedRevisions: [:],
             rows: [], steps: ["store", "store", "store"], lookedUp: []),
        Case(name: "a waiting change holds its record; the others keep page order",
             page: [book("z"), book("m"), book("a")], waiting: ["m"], deletedRevisions: [:], rows: [],
             steps: ["store", "hold", "store"], lookedUp: ["waiting z", "waiting m", "waiting a"]),
        Case(name: "a waiting change holds a tombstone too",
             page: [Wire.tombstone("m", lastModified: 7)], waiting: ["m"], deletedRevisions: [:], rows: [],
             steps: ["hold"], lookedUp: ["waiting m"]),
        Case(name: "the version whose deletion was acknowledged, with no row left, is deleted again",
             page: [book("gone", revision: "r2"), book("kept")], waiting: [], deletedRevisions: ["gone": "r2"], rows: [],
             steps: ["delete again", "store"], lookedUp: ["deleted gone", "row gone", "deleted kept"]),
        Case(name: "a newer version than the one deleted (its lineage goes on) is stored",
             page: [book("gone", revision: "r3")], waiting: [], deletedRevisions: ["gone": "r2"], rows: [],
             steps: ["store"], lookedUp: ["deleted gone"]),
        Case(name: "a version without lineage (another client's) is stored",
             page: [book("gone")], waiting: [], deletedRevisions: ["gone": "r2"], rows: [],
             steps: ["store"], lookedUp: ["deleted gone"]),
        Case(name: "the deleted version while the store still holds a row of it is stored",
             page: [book("gone", revision: "r2")], waiting: [], deletedRevisions: ["gone": "r2"], rows: ["gone"],
             steps: ["store"], lookedUp: ["deleted gone", "row gone"]),
        Case(name: "a tombstone of a deleted record is stored, never deleted again",
             page: [Wire.tombstone("gone", lastModified: 9)], waiting: [], deletedRevisions: ["gone": "r2"], rows: [],
             steps: ["store"], lookedUp: []),
        Case(name: "a waiting change wins over a remembered deletion of the same id",
             page: [book("gone", revision: "r2")], waiting: ["gone"], deletedRevisions: ["gone": "r2"], rows: [],
             steps: ["hold"], lookedUp: ["waiting gone"]),
    ]

    @Test(arguments: cases)
    func thePlanFollowsTheTable(_ row: Case) throws {
        let store = Store()
        store.waiting = Dictionary(uniqueKeysWithValues: row.waiting.map { ($0, Self.entry($0)) })
        store.deletedRevisions = row.deletedRevisions
        store.rows = row.rows

        let plan = try PulledRecordsPlan(row.page, store.lookups)

        let ids = (stored: plan.stored.map(\.id), held: plan.held.map(\.record.id), again: plan.deletedAgain.map(\.id))
        let steps = row.page.map { record in
            ids.stored.contains(record.id) ? "store"
                : ids.held.contains(record.id) ? "hold" : ids.again.contains(record.id) ? "delete again" : "left out"
        }
        #expect(steps == row.steps)
        #expect(ids.stored.count + ids.held.count + ids.again.count == row.page.count, "every record once")
        for list in [ids.stored, ids.held, ids.again] {
            #expect(list == row.page.map(\.id).filter(list.contains), "in page order")
        }
        #expect(store.lookedUp == row.lookedUp)
        #expect(plan.storesWholePage == row.steps.allSatisfy { $0 == "store" })
        #expect(plan.held.map(\.waiting.recordID) == ids.held, "each held with its own waiting change")
    }

    // MARK: Carried out

    /// The plan carried out in a store: a stale copy of an acknowledged deletion becomes
    /// a hidden row with its deletion queued again, the rest of the page is stored.
    @Test func aStaleCopyIsQueuedForDeletionAndTheRestStored() throws {
        let store = try ShelfStore.testStore()
        try store.write { tx in try tx.writeAcknowledgedDeletion(.books, id: "gone", revision: "r2") }
        let held = try store.write { tx in
            try SyncRules(tx).applyPulled([Self.book("gone", revision: "r2"), Self.book("new")], to: .books)
        }
        #expect(held.isEmpty)
        #expect(try store.read { try $0.record(.books, id: "new") } != nil)
        #expect(try store.read { try $0.record(.books, id: "gone") } == nil, "hidden: a deletion on its way")
        #expect(try store.read { try $0.record(.books, id: "gone", includingDeleted: true) } != nil)
        #expect(try store.read { try $0.outboxEntry(.books, id: "gone")?.kind } == .delete)
    }
}
