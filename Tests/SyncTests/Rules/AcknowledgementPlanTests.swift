import Domain
import Foundation
import Records
import Storage
import Testing
@testable import Sync

// MARK: - AcknowledgementPlanTests

/// What a pushed change's acknowledgement writes, planned without a store
/// (`AcknowledgementPlan.plan`): the change as sent, the server's answer and what the store
/// holds for the record, against the steps in order. `PushAcknowledgementTests` has the
/// decision alone; `InFlightTests` runs the same rules through a store.
@Suite struct AcknowledgementPlanTests {
    // MARK: - The record's rows

    static let base = BaseSnapshot(collection: .books, recordID: "b", json: Data(#"{"id":"b","title":"Old"}"#.utf8), lastModified: 10)
    static let stored = RawRecord(id: "b", lastModified: 20, json: Data(#"{"id":"b","title":"New","last_modified":20}"#.utf8))
    static let tombstone = RawRecord(id: "b", lastModified: 20, isDeleted: true, json: Data(#"{"deleted":true}"#.utf8))
    static let row = StoredRecord(collection: .books, id: "b", json: Data(#"{"id":"b","title":"Mine"}"#.utf8), lastModified: 10)
    static let hiddenRow = StoredRecord(collection: .books, id: "b", json: Data(#"{"id":"b","title":"Mine"}"#.utf8), lastModified: 10, isDeleted: true)

    static func entry(sequence: Int64, revision: Int64, sent: Int64?, kind: OutboxEntry.Kind = .update, lineage: String? = "r2") -> OutboxEntry {
        let now = Date(timeIntervalSince1970: 0)
        return OutboxEntry(sequence: sequence, collection: .books, recordID: "b", kind: kind, baseLastModified: 10,
                           createdAt: now, updatedAt: now, revision: revision, sentRevision: sent, sentLineageID: lineage)
    }

    /// The pushed update: entry 7, sent at its revision 3; and the pushed deletion.
    static let pushedUpdate = entry(sequence: 7, revision: 3, sent: 3)
    static let pushedDeletion = entry(sequence: 7, revision: 3, sent: 3, kind: .delete)

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        var pushed = AcknowledgementPlanTests.pushedUpdate
        var server = AcknowledgementPlanTests.stored
        let read: AcknowledgementRead
        var sentSequence: Int64?
        let steps: [AcknowledgementPlan.Step]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "an update settled: remembered with its base, the row becomes the server's, entry and base go",
             read: AcknowledgementRead(current: pushedUpdate, base: base, row: row),
             steps: [.rememberWrite(base), .forgetServerDeletion, .removeOutbox(sequence: 7), .removeBase,
                     .writeRecord(json: stored.json, lastModified: 20, deleted: false)]),
        Case(name: "an update sent without a revision id: settled, with no write to remember",
             pushed: entry(sequence: 7, revision: 3, sent: 3, lineage: nil),
             read: AcknowledgementRead(current: entry(sequence: 7, revision: 3, sent: 3, lineage: nil), base: base, row: row),
             steps: [.forgetServerDeletion, .removeOutbox(sequence: 7), .removeBase,
                     .writeRecord(json: stored.json, lastModified: 20, deleted: false)]),
        Case(name: "a create settled (no base): nothing to remember it by",
             read: AcknowledgementRead(current: pushedUpdate, base: nil, row: row),
             steps: [.forgetServerDeletion, .removeOutbox(sequence: 7), .removeBase,
                     .writeRecord(json: stored.json, lastModified: 20, deleted: false)]),
        Case(name: "a create sent against a version (an edit back up over a deletion) settled: remembered with its base",
             pushed: entry(sequence: 7, revision: 3, sent: 3, kind: .create),
             read: AcknowledgementRead(current: entry(sequence: 7, revision: 3, sent: 3, kind: .create), base: base, row: row),
             steps: [.rememberWrite(base), .forgetServerDeletion, .removeOutbox(sequence: 7), .removeBase,
                     .writeRecord(json: stored.json, lastModified: 20, deleted: false)]),
        Case(name: "a create with no base settled: nothing to remember it by",
             pushed: entry(sequence: 7, revision: 3, sent: 3, kind: .create),
             read: AcknowledgementRead(current: entry(sequence: 7, revision: 3, sent: 3, kind: .create), base: nil, row: row),
             steps: [.forgetServerDeletion, .removeOutbox(sequence: 7), .removeBase,
                     .writeRecord(json: stored.json, lastModified: 20, deleted: false)]),
        Case(name: "a create sent again unchanged (no revision id): nothing to remember it by",
             pushed: entry(sequence: 7, revision: 3, sent: 3, kind: .create, lineage: nil),
             read: AcknowledgementRead(current: entry(sequence: 7, revision: 3, sent: 3, kind: .create, lineage: nil), base: base, row: row),
             steps: [.forgetServerDeletion, .removeOutbox(sequence: 7), .removeBase,
                     .writeRecord(json: stored.json, lastModified: 20, deleted: false)]),
        Case(name: "a deletion settled: remembered by its base, the row goes",
             pushed: pushedDeletion, server: tombstone,
             read: AcknowledgementRead(current: pushedDeletion, base: base, row: hiddenRow),
             steps: [.removeOutbox(sequence: 7), .rememberDeletion(lastVersion: base.json), .removeRecord]),
        Case(name: "a deletion settled with no base: remembered by the row",
             pushed: pushedDeletion, server: tombstone,
             read: AcknowledgementRead(current: pushedDeletion, base: nil, row: hiddenRow),
             steps: [.removeOutbox(sequence: 7), .rememberDeletion(lastVersion: hiddenRow.json), .removeRecord]),
        Case(name: "a sealed deletion settled: its sequence is remembered too",
             pushed: pushedDeletion, server: tombstone,
             read: AcknowledgementRead(current: pushedDeletion, base: base, row: hiddenRow), sentSequence: 5,
             steps: [.rememberSealedDeletion(SealedDeletion(sequence: 5, revision: "r2", lastModified: 20)),
                     .removeOutbox(sequence: 7), .rememberDeletion(lastVersion: base.json), .removeRecord]),
        Case(name: "edited after it was sent: the newer state stays queued as an update of the server's version",
             read: AcknowledgementRead(current: entry(sequence: 7, revision: 4, sent: 3), base: base, row: row),
             steps: [.rememberWrite(base), .forgetServerDeletion, .clearSent(sequence: 7),
                     .writeBase(json: stored.json, lastModified: 20), .setLastModified(20),
                     .queue(.update, base: 20, waiting: entry(sequence: 7, revision: 4, sent: 3))]),
        Case(name: "deleted here after it was sent: the deletion is queued against the server's version",
             read: AcknowledgementRead(current: entry(sequence: 7, revision: 4, sent: 3, kind: .delete), base: base, row: hiddenRow),
             steps: [.rememberWrite(base), .forgetServerDeletion, .clearSent(sequence: 7),
                     .writeBase(json: stored.json, lastModified: 20), .setLastModified(20),
                     .queue(.delete, base: 20, waiting: entry(sequence: 7, revision: 4, sent: 3, kind: .delete))]),
        Case(name: "a new entry replaced the pushed one: the write is not remembered as the record's last",
             read: AcknowledgementRead(current: entry(sequence: 8, revision: 1, sent: nil), base: base, row: row),
             steps: [.forgetServerDeletion, .clearSent(sequence: 8),
                     .writeBase(json: stored.json, lastModified: 20), .setLastModified(20),
                     .queue(.update, base: 20, waiting: entry(sequence: 8, revision: 1, sent: nil))]),
        Case(name: "a deletion acknowledged, the record brought back here: queued as a create",
             pushed: pushedDeletion, server: tombstone,
             read: AcknowledgementRead(current: entry(sequence: 7, revision: 4, sent: 3, kind: .create), base: base, row: row),
             steps: [.clearSent(sequence: 7), .removeBase, .setLastModified(nil),
                     .queue(.create, base: nil, waiting: entry(sequence: 7, revision: 4, sent: 3, kind: .create))]),
        Case(name: "a deletion acknowledged, changed and deleted again here: nothing left to send",
             pushed: pushedDeletion, server: tombstone,
             read: AcknowledgementRead(current: entry(sequence: 7, revision: 4, sent: 3, kind: .delete), base: nil, row: hiddenRow),
             steps: [.clearSent(sequence: 7), .removeOutbox(sequence: 7), .rememberDeletion(lastVersion: hiddenRow.json), .removeRecord]),
        Case(name: "the entry was discarded meanwhile: the row follows the server",
             read: AcknowledgementRead(current: nil, base: nil, row: row),
             steps: [.forgetServerDeletion, .writeRecord(json: stored.json, lastModified: 20, deleted: false)]),
        Case(name: "the entry was discarded and the record given up here: its deletion is queued against the server's",
             read: AcknowledgementRead(current: nil, base: nil, row: nil),
             steps: [.forgetServerDeletion, .writeRecord(json: stored.json, lastModified: 20, deleted: true),
                     .writeBase(json: stored.json, lastModified: 20), .queue(.delete, base: 20, waiting: nil)]),
        Case(name: "the entry was discarded and the server deleted too: nothing left to do",
             pushed: pushedDeletion, server: tombstone,
             read: AcknowledgementRead(current: nil, base: nil, row: nil),
             steps: []),
    ]

    @Test(arguments: cases)
    func theStepsFollowTheTable(_ row: Case) {
        let plan = AcknowledgementPlan.plan(pushed: row.pushed, server: row.server, read: row.read, sentSequence: row.sentSequence)
        #expect(plan.steps == row.steps)
    }
}
