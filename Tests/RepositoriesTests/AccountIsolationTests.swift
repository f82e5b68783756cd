import Domain
import Foundation
import Repositories
import Storage
import Testing
import TestSupport

@Suite("Repositories: one account's data is never served for another")
struct AccountIsolationTests {
    /// Two accounts whose stores hold records with the same ids and different contents.
    private func twoAccounts() throws -> (a: Harness, b: Harness) {
        let a = try Harness()
        let b = try Harness()
        try a.store.pull([try Wire.book("book-1", title: "Dune", author: "Frank Herbert")], into: .books)
        try b.store.pull([try Wire.book("book-1", title: "Solaris", author: "Stanisław Lem")], into: .books)
        try a.store.pull([try Wire.note("note-1", title: "A's note")], into: .notes)
        try b.store.pull([try Wire.note("note-1", title: "B's note")], into: .notes)
        try a.store.pull([try Wire.cartLine("prod-1", quantity: 3)], into: .cart)
        try b.store.pull([try Wire.cartLine("prod-1", quantity: 1)], into: .cart)
        return (a, b)
    }

    @Test func switchingAccountsServesTheOtherAccountsData() async throws {
        let (a, b) = try twoAccounts()

        // GIVEN account A is loaded and its caches are warm
        let accountA = a.repositories
        #expect(titles(try await accountA.books.books(forceRefresh: false)) == ["Dune"])
        #expect(try await accountA.notes.loadNotes().map(\.title) == ["A's note"])
        #expect(try await accountA.cart.cartItems().map(\.quantity) == [3])

        // WHEN the reader switches to account B (a new container over B's store)
        let accountB = b.repositories

        // THEN B's data is served, ids notwithstanding, and B's own sync engine refreshed it
        #expect(titles(try await accountB.books.books(forceRefresh: false)) == ["Solaris"])
        #expect(try await accountB.notes.loadNotes().map(\.title) == ["B's note"])
        #expect(try await accountB.cart.cartItems().map(\.quantity) == [1])
        #expect(try await accountB.books.book(id: "book-1")?.author == "Stanisław Lem")
        #expect(await a.refresher.calls == [.books, .notes, .cart])
        #expect(await b.refresher.calls == [.books, .notes, .cart])

        // AND A's repositories still serve A's data
        #expect(titles(try await accountA.books.books(forceRefresh: false)) == ["Dune"])
    }

    @Test func editsInOneAccountStayInItsStore() async throws {
        let (a, b) = try twoAccounts()
        let accountA = a.repositories
        let accountB = b.repositories
        _ = try await accountA.books.load()
        _ = try await accountB.books.load()

        var renamed = try #require(try await accountA.books.book(id: "book-1"))
        try renamed.rename(to: "Dune Messiah")
        try await accountA.books.updateBook(renamed)
        _ = try await accountA.tasks.addTask(title: "Read chapter 1")

        #expect(titles(try await accountB.books.load().value) == ["Solaris"])
        #expect(try await accountB.tasks.tasks().isEmpty)
        #expect(try b.store.pendingCount() == 0)
        #expect(try a.store.pendingCount() == 2)
    }

    @Test func preferencesAndStatusBelongToTheAccountToo() async throws {
        let (a, b) = try twoAccounts()
        try a.repositories.preferences.setFavorites(["book-1"])
        _ = try await a.repositories.books.addBook(title: "Kindred", author: "Octavia E. Butler")

        #expect(try b.repositories.preferences.favorites().isEmpty)
        // The book and the preferences record: favorites sync.
        #expect(try await a.repositories.syncStatus.syncStatus().pendingChanges == 2)
        #expect(try await b.repositories.syncStatus.syncStatus().pendingChanges == 0)
    }

    // MARK: - Background work of a container

    @Test func leavingAnAccountCancelsItsRefreshes() async throws {
        let a = try Harness()
        try a.store.pull([try Wire.book("book-1", title: "Dune")], into: .books)
        let gate = SuspensionGate<RefreshSummary>()
        await a.refresher.enqueue(.gate(gate), for: .books)
        let accountA = a.repositories

        let load = Task { try await accountA.books.load() }
        await gate.arrival()
        await accountA.cancelRefreshes()

        // The read answers with what the store has, saying the refresh did not finish.
        let result = try await load.value
        #expect(titles(result.value) == ["Dune"])
        #expect(result.refreshError is CancellationError)
        #expect(await gate.waitingCount == 0)
    }

    @Test func waitingForRefreshesLetsEveryRefreshBehindAReadLand() async throws {
        let harness = try Harness(policy: FreshnessPolicy(maxAge: .seconds(60), staleWhileRevalidate: .seconds(600)))
        let store = harness.store
        let repositories = harness.repositories
        _ = try await repositories.books.load()
        _ = try await repositories.tasks.load()
        await harness.refresher.onRefresh(.books) {
            try store.pull([try Wire.book("b1", title: "Dune")], into: .books)
            return RefreshSummary(changedRecords: 1)
        }
        await harness.refresher.onRefresh(.tasks) {
            try store.pull([try Wire.task("t1", title: "Read")], into: .tasks)
            return RefreshSummary(changedRecords: 1)
        }

        // Two stale reads answer at once and each starts a refresh behind it.
        harness.clock.advance(by: .seconds(120))
        #expect(try await repositories.books.load().value.isEmpty)
        #expect(try await repositories.tasks.load().value.isEmpty)
        await repositories.waitForRefreshes()

        #expect(titles(try await repositories.books.load().value) == ["Dune"])
        #expect(try await repositories.tasks.load().value.map(\.title) == ["Read"])
        // The first loads ran one after the other; the two refreshes behind the stale
        // reads run concurrently, so their order is not part of the contract.
        let calls = await harness.refresher.calls
        #expect(Array(calls.prefix(2)) == [.books, .tasks])
        #expect(calls.count == 4 && Set(calls.suffix(2)) == [.books, .tasks])
    }
}
