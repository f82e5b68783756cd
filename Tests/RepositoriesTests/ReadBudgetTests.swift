import Domain
import Foundation
import Repositories
import Storage
import Testing
import TestSupport

/// A read waits for the network only as long as its budget: a refresh that does not
/// end in time is cancelled, and the read answers from the store with the reason.
@Suite("Repositories: the read budget")
struct ReadBudgetTests {
    /// GIVEN a stale collection with a book, and a refresh held at a gate that never opens
    /// WHEN a read asks, and its budget runs out while the refresh is held
    /// THEN it answers with the stored book and `ReadBudgetExceeded`, and the held
    /// refresh was cancelled (the gate saw it leave).
    @Test func aStaleReadAnswersFromTheStoreWhenTheRefreshOverrunsTheBudget() async throws {
        let harness = try Harness()
        try harness.store.pull([try Wire.book("b1", title: "Dune")], into: .books)
        try harness.store.markSynced(.books, at: harness.clock.now.addingTimeInterval(-3_600))
        let gate = SuspensionGate<RefreshSummary>()
        await harness.refresher.enqueue(.gate(gate), for: .books)
        let deadline = SuspensionGate<Void>()
        let budget = ReadBudget(limit: .seconds(1)) { try await deadline.pass() }
        let books = BookRepository(
            store: harness.store, refresher: BudgetedRefresher(harness.refresher, budget: budget), configuration: harness.configuration)

        let read = Task { try await books.load(forceRefresh: false) }
        await gate.arrival()
        await deadline.open(with: ())
        let result = try await read.value
        #expect(titles(result.value) == ["Dune"])
        #expect(result.refreshError is ReadBudgetExceeded, "\(String(describing: result.refreshError))")
        #expect(await gate.arrivalCount == 1)
        #expect(await gate.waitingCount == 0, "the refresh was cancelled, not left waiting")
    }

    /// A refresh that ends within the budget is the read's answer.
    @Test func aRefreshWithinTheBudgetIsTheAnswer() async throws {
        let harness = try Harness()
        await harness.refresher.onRefresh(.books) {
            try harness.store.pull([try Wire.book("b2", title: "Solaris")], into: .books)
            return RefreshSummary(changedRecords: 1)
        }
        let budgeted = BudgetedRefresher(harness.refresher, budget: ReadBudget(limit: .seconds(1)) { try await SuspensionGate<Void>().pass() })
        let books = BookRepository(store: harness.store, refresher: budgeted, configuration: harness.configuration)

        let result = try await books.load(forceRefresh: false)
        #expect(titles(result.value) == ["Solaris"])
        #expect(result.refreshError == nil)
    }

    /// A spent budget does not even start a refresh.
    @Test func aSpentBudgetStartsNothing() async throws {
        let harness = try Harness()
        let budgeted = BudgetedRefresher(harness.refresher, budget: ReadBudget(.zero))
        await #expect(throws: ReadBudgetExceeded.self) { try await budgeted.refresh(.books) }
        #expect(await harness.refresher.callCount(.books) == 0)
    }
}
