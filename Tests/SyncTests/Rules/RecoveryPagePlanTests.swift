import Domain
import Foundation
import Records
import Storage
import Testing
import TestSupport
@testable import Sync

// MARK: - RecoveryPagePlanTests

/// What a recovery's page (the server forgot data) does with each record, decided
/// without a store (`RecoveryPagePlan`): a table of pulled records against the local row
/// and waiting change, with the store's cursor from before the recovery at 500.
@Suite struct RecoveryPagePlanTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let record: RawRecord
        /// The local row's server stamp: nil, no row; `.some(nil)`, a row never synced.
        let localStamp: Int64??
        var waiting = false
        /// "newer local", "local deletion" or "apply".
        let outcome: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "the local version is newer than the server's: kept and queued over it",
             record: Wire.remoteBook("b", title: "Old", lastModified: 300), localStamp: 400, outcome: "newer local"),
        Case(name: "the local version is the server's: applied",
             record: Wire.remoteBook("b", title: "Same", lastModified: 400), localStamp: 400, outcome: "apply"),
        Case(name: "the server's is newer: applied",
             record: Wire.remoteBook("b", title: "New", lastModified: 600), localStamp: 400, outcome: "apply"),
        Case(name: "a newer local version with a waiting change: the merge decides, applied",
             record: Wire.remoteBook("b", title: "Old", lastModified: 300), localStamp: 400, waiting: true, outcome: "apply"),
        Case(name: "a local row never synced: applied (the merge or the requeue decides)",
             record: Wire.remoteBook("b", title: "Old", lastModified: 300), localStamp: .some(nil), outcome: "apply"),
        Case(name: "pulled before the recovery and gone here: deleted here since, the deletion queued again",
             record: Wire.remoteBook("b", title: "Old", lastModified: 500), localStamp: nil, outcome: "local deletion"),
        Case(name: "stamped after the old cursor and not here: new to this store, applied",
             record: Wire.remoteBook("b", title: "New", lastModified: 501), localStamp: nil, outcome: "apply"),
        Case(name: "a tombstone: applied",
             record: Wire.tombstone("b", lastModified: 300), localStamp: 400, outcome: "apply"),
    ]

    @Test(arguments: cases)
    func thePlanFollowsTheTable(_ row: Case) throws {
        let lookups = RecoveryPagePlan.Lookups(
            waiting: { _ in row.waiting },
            localRow: { _ in row.localStamp.map { RecoveryPagePlan.LocalRow(lastModified: $0) } })
        let plan = try RecoveryPagePlan([row.record], cursorBefore: 500, lookups)
        let outcome = !plan.keptNewerLocal.isEmpty ? "newer local" : !plan.keptLocalDeletion.isEmpty ? "local deletion" : "apply"
        #expect(outcome == row.outcome)
        #expect(plan.keptNewerLocal.count + plan.keptLocalDeletion.count + plan.applied.count == 1)
    }

    /// Without a cursor from before (a reconciliation's question), a record not here is applied.
    @Test func withoutAnEarlierCursorNothingCountsAsDeletedHere() throws {
        let lookups = RecoveryPagePlan.Lookups(waiting: { _ in false }, localRow: { _ in nil })
        let plan = try RecoveryPagePlan([Wire.remoteBook("b", title: "T", lastModified: 1)], cursorBefore: nil, lookups)
        #expect(plan.applied.map(\.id) == ["b"])
    }

    /// A page keeps its order among the records applied.
    @Test func appliedRecordsKeepPageOrder() throws {
        let page = ["c", "a", "b"].map { Wire.remoteBook($0, title: $0, lastModified: 900) }
        let lookups = RecoveryPagePlan.Lookups(waiting: { _ in false }, localRow: { _ in nil })
        #expect(try RecoveryPagePlan(page, cursorBefore: 500, lookups).applied.map(\.id) == ["c", "a", "b"])
    }
}
