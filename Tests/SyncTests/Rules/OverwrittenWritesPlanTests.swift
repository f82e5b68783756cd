import Domain
import Foundation
import Records
import Storage
import Testing
@testable import Sync

// MARK: - OverwrittenWritesPlanTests

/// Which acknowledged writes a pulled page replaced unseen, decided without a store
/// (`OverwrittenWrites.plan`): a table of pulled records against the write this device
/// remembers for each.
@Suite struct OverwrittenWritesPlanTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// This device's update of "b": revision "mine", written over parent "p" at stamp 200.
    static let write = AcknowledgedWrite(
        collection: .books, recordID: "b", revision: "mine", parent: "p", base: Data("{}".utf8), baseLastModified: 100,
        written: Data(#"{"id":"b","title":"Mine","_shelf_revs":["p","mine"]}"#.utf8), writtenLastModified: 200)

    static func pulled(stamp: Int64, lineage: [String]?, title: String = "Theirs") -> RawRecord {
        let revs = lineage.map { #","_shelf_revs":[\#($0.map { "\"\($0)\"" }.joined(separator: ","))]"# } ?? ""
        return RawRecord(id: "b", lastModified: stamp, json: Data(#"{"id":"b","title":"\#(title)"\#(revs)}"#.utf8))
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let remembered: Bool
        let record: RawRecord
        var waiting: OutboxEntry? = nil
        /// "reopen", "forget" or "nothing".
        let step: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "nothing remembered: nothing looked up, nothing done",
             remembered: false, record: pulled(stamp: 300, lineage: ["p", "other"]), step: "nothing"),
        Case(name: "a record no newer than the write is not about it",
             remembered: true, record: pulled(stamp: 200, lineage: ["p", "other"]), step: "nothing"),
        Case(name: "a record that descends from the parent but not the write replaced it unseen: reopened",
             remembered: true, record: pulled(stamp: 300, lineage: ["p", "other"]), step: "reopen"),
        Case(name: "a record that names the write saw it: the memory goes",
             remembered: true, record: pulled(stamp: 300, lineage: ["p", "mine", "other"]), step: "forget"),
        Case(name: "a record that names neither (lineage cut, another client): the memory goes",
             remembered: true, record: pulled(stamp: 300, lineage: nil), step: "forget"),
        Case(name: "a tombstone carries no lineage: the memory goes",
             remembered: true, record: RawRecord(id: "b", lastModified: 300, isDeleted: true, json: Data(#"{"id":"b"}"#.utf8)),
             step: "forget"),
        Case(name: "the echo of this device's change in flight was applied after the other write: nothing lost",
             remembered: true, record: pulled(stamp: 300, lineage: ["p", "other"], title: "Sent"),
             waiting: OutboxEntry(sequence: 1, collection: .books, recordID: "b", kind: .update, baseLastModified: 200,
                                  createdAt: now, updatedAt: now, revision: 1, sentRevision: 1,
                                  sentBody: Data(#"{"id":"b","title":"Sent"}"#.utf8)),
             step: "nothing"),
    ]

    @Test(arguments: cases)
    func thePlanFollowsTheTable(_ row: Case) throws {
        let lookedUp = LookedUp()
        let lookups = OverwrittenWrites.Lookups(
            anyRemembered: row.remembered,
            write: { id in lookedUp.names.append("write \(id)"); return Self.write },
            waiting: { id in lookedUp.names.append("waiting \(id)"); return row.waiting })
        let steps = try OverwrittenWrites.plan([row.record], lookups)
        let words = steps.map { step -> String in
            switch step {
            case .reopen(let write): return write == Self.write ? "reopen" : "reopen another write"
            case .forget(let id): return id == "b" ? "forget" : "forget another id"
            }
        }
        #expect(words == (row.step == "nothing" ? [] : [row.step]))
        #expect(lookedUp.names.isEmpty == !row.remembered, "nothing is looked up when nothing is remembered")
    }

    final class LookedUp {
        var names: [String] = []
    }
}
