import Domain
import Foundation
import Records
import Storage
import Testing
@testable import Sync

// MARK: - WaitingChangePlanTests

/// What moving a waiting change onto a newer server version, or dropping it, writes,
/// planned without a store (`WaitingChangePlan.rebase`, `.discard`). `SyncOperationTests`
/// runs the same rules through a store.
@Suite struct WaitingChangePlanTests {
    static func entry(_ kind: OutboxEntry.Kind, sent: Int64? = nil) -> OutboxEntry {
        let now = Date(timeIntervalSince1970: 0)
        return OutboxEntry(sequence: 7, collection: .books, recordID: "b", kind: kind, baseLastModified: 10,
                           createdAt: now, updatedAt: now, revision: 3, sentRevision: sent)
    }

    static let mine = Data(#"{"id":"b","title":"Mine"}"#.utf8)
    static let merged = Data(#"{"id":"b","title":"Merged"}"#.utf8)
    static let row = StoredRecord(collection: .books, id: "b", json: mine, lastModified: 10)
    static let hiddenRow = StoredRecord(collection: .books, id: "b", json: mine, lastModified: 10, isDeleted: true)
    static let remote = RawRecord(id: "b", lastModified: 20, json: Data(#"{"id":"b","title":"Theirs","last_modified":20}"#.utf8))
    static let tombstone = RawRecord(id: "b", lastModified: 20, isDeleted: true, json: Data(#"{"deleted":true}"#.utf8))

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        var waiting = WaitingChangePlanTests.entry(.update)
        var row = WaitingChangePlanTests.row
        var remote = WaitingChangePlanTests.remote
        var merged: Data?
        let steps: [WaitingChangePlan.Step]
        var testDescription: String { name }
    }

    static let rebases: [Case] = [
        Case(name: "an edit merged with a newer version: the merge waits as an update of it",
             merged: merged,
             steps: [.clearSent(sequence: 7), .writeBase(json: remote.json, lastModified: 20),
                     .writeRecord(json: merged, lastModified: 20, deleted: false), .queue(.update, base: 20)]),
        Case(name: "the local side wins: the local content waits as an update of the newer version",
             steps: [.clearSent(sequence: 7), .writeBase(json: remote.json, lastModified: 20),
                     .writeRecord(json: mine, lastModified: 20, deleted: false), .queue(.update, base: 20)]),
        Case(name: "a deletion in flight meets a newer version: it stays in flight no more, and waits against it",
             waiting: entry(.delete, sent: 3), row: hiddenRow,
             steps: [.clearSent(sequence: 7), .writeBase(json: remote.json, lastModified: 20),
                     .writeRecord(json: mine, lastModified: 20, deleted: true), .queue(.delete, base: 20)]),
        Case(name: "the server deleted what the reader changed: pushed again as a create, the tombstone's stamp kept",
             remote: tombstone, merged: merged,
             steps: [.clearSent(sequence: 7), .removeBase, .writeRecord(json: merged, lastModified: nil, deleted: false),
                     .queue(.create, base: nil), .keepServerTombstone(stamp: 20)]),
        Case(name: "deleted on both sides: nothing is left to push",
             waiting: entry(.delete), row: hiddenRow, remote: tombstone,
             steps: [.clearSent(sequence: 7), .removeOutbox(sequence: 7), .removeRecord]),
    ]

    @Test(arguments: rebases)
    func aRebaseFollowsTheTable(_ row: Case) {
        #expect(WaitingChangePlan.rebase(row.waiting, row: row.row, onto: row.remote, merged: row.merged).steps == row.steps)
    }

    @Test func discardingAnEditPutsTheServersVersionBack() throws {
        let base = BaseSnapshot(collection: .books, recordID: "b", json: Self.remote.json, lastModified: 20)
        #expect(try WaitingChangePlan.discard(Self.entry(.update), base: base).steps == [
            .removeOutbox(sequence: 7), .writeRecord(json: Self.remote.json, lastModified: 20, deleted: false), .removeBase,
        ])
    }

    @Test func discardingACreationNeverPushedRemovesTheRecord() throws {
        #expect(try WaitingChangePlan.discard(Self.entry(.create), base: nil).steps == [.removeOutbox(sequence: 7), .removeRecord])
    }

    @Test func discardingAnEditWithoutItsBaseIsDamageNotAGuess() {
        #expect(throws: StorageError.self) { _ = try WaitingChangePlan.discard(Self.entry(.delete), base: nil) }
    }
}
