import Domain
import Foundation
import Repositories
import Storage
import Testing
import TestSupport

@Suite("Repositories: freshness decides when to refresh", .timeLimit(.minutes(1)))
struct FreshnessTests {
    /// A harness whose store holds the book `b1` "Dune", and a repository that has
    /// loaded it once (one refresh, at the clock's start).
    private func loaded(policy: FreshnessPolicy) async throws -> (Harness, BookRepository) {
        let harness = try Harness(policy: policy)
        try harness.store.pull([try Wire.book("b1", title: "Dune")], into: .books)
        let repository = harness.books()
        let first = try await repository.load()
        #expect(titles(first.value) == ["Dune"])
        #expect(await harness.refresher.callCount(.books) == 1)
        return (harness, repository)
    }

    /// Makes the next refreshes of books pull `b2` "Solaris", as the sync engine would.
    private func pullSolarisOnRefresh(_ harness: Harness) async {
        let store = harness.store
        await harness.refresher.onRefresh(.books) {
            try store.pull([try Wire.book("b2", title: "Solaris", lastModified: 2000)], into: .books)
            return RefreshSummary(changedRecords: 1)
        }
    }

    @Test func aFreshCacheIsServedWithoutARequest() async throws {
        let (harness, repository) = try await loaded(policy: FreshnessPolicy(maxAge: .seconds(120)))
        await pullSolarisOnRefresh(harness)

        harness.clock.advance(by: .seconds(119))
        let result = try await repository.load()

        #expect(await harness.refresher.callCount(.books) == 1)
        #expect(titles(result.value) == ["Dune"])
        #expect(!result.isStale)
        #expect(result.refreshError == nil)
        #expect(result.fetchedAt == SampleShelf.now)
    }

    @Test func aStaleCacheRefreshesExactlyOnceThenServesTheNewData() async throws {
        let (harness, repository) = try await loaded(policy: FreshnessPolicy(maxAge: .seconds(120)))
        await pullSolarisOnRefresh(harness)

        harness.clock.advance(by: .seconds(121))
        let result = try await repository.load()

        #expect(await harness.refresher.callCount(.books) == 2)
        #expect(titles(result.value) == ["Dune", "Solaris"])
        #expect(!result.isStale)
        #expect(result.fetchedAt == harness.clock.now)

        // Fresh again: the next read asks nothing.
        _ = try await repository.load()
        #expect(await harness.refresher.callCount(.books) == 2)
    }

    @Test func withinStaleWhileRevalidateTheCacheIsServedAtOnceAndRefreshedBehind() async throws {
        let (harness, repository) = try await loaded(
            policy: FreshnessPolicy(maxAge: .seconds(120), staleWhileRevalidate: .seconds(3600)))
        let gate = SuspensionGate<RefreshSummary>()
        await harness.refresher.enqueue(.gate(gate), for: .books)
        await pullSolarisOnRefresh(harness)

        // WHEN a read comes five minutes later, while the refresh it starts is held at the gate
        harness.clock.advance(by: .seconds(300))
        let served = try await repository.load()

        // THEN it answered with what it had, and the refresh is under way behind it
        #expect(titles(served.value) == ["Dune"])
        #expect(served.isStale)
        #expect(served.fetchedAt == SampleShelf.now)
        await gate.arrival()
        #expect(await harness.refresher.callCount(.books) == 2)

        // WHEN the refresh finishes
        await gate.open(with: .unchanged)
        let outcome = await repository.waitForRefresh()
        #expect(try outcome?.get() == RefreshSummary(changedRecords: 1))

        // THEN the next read sees its data, fresh, without another request
        let next = try await repository.load()
        #expect(titles(next.value) == ["Dune", "Solaris"])
        #expect(!next.isStale)
        #expect(next.fetchedAt == harness.clock.now)
        #expect(await harness.refresher.callCount(.books) == 2)
    }

    @Test func readsDuringABackgroundRefreshDoNotStartAnother() async throws {
        let (harness, repository) = try await loaded(
            policy: FreshnessPolicy(maxAge: .seconds(120), staleWhileRevalidate: .seconds(3600)))
        let gate = SuspensionGate<RefreshSummary>()
        await harness.refresher.enqueue(.gate(gate), for: .books)

        harness.clock.advance(by: .seconds(300))
        _ = try await repository.load()
        await gate.arrival()
        _ = try await repository.load()
        _ = try await repository.books(matching: "dune")

        #expect(await harness.refresher.callCount(.books) == 2)
        await gate.open(with: .unchanged)
        await repository.waitForRefresh()
    }

    @Test func forceRefreshAsksEvenWhenTheCacheIsFresh() async throws {
        let (harness, repository) = try await loaded(policy: FreshnessPolicy(maxAge: .seconds(120)))
        await pullSolarisOnRefresh(harness)

        harness.clock.advance(by: .seconds(1))
        let books = try await repository.books(forceRefresh: true)

        #expect(await harness.refresher.callCount(.books) == 2)
        #expect(titles(books) == ["Dune", "Solaris"])
    }

    @Test func aSyncRecordedInTheStoreCountsAsFresh() async throws {
        // GIVEN the cron worker synced books a minute ago (another process: the store says so)
        let harness = try Harness(policy: FreshnessPolicy(maxAge: .seconds(120)))
        try harness.store.pull([try Wire.book("b1", title: "Dune")], into: .books)
        try harness.store.markSynced(.books, at: harness.clock.now.addingTimeInterval(-60))

        // WHEN a new repository (a new CLI run) reads
        let result = try await harness.books().load()

        // THEN it serves the store without a request
        #expect(titles(result.value) == ["Dune"])
        #expect(await harness.refresher.callCount(.books) == 0)
        #expect(result.fetchedAt == harness.clock.now.addingTimeInterval(-60))
    }

    @Test func aNeverRefreshedCollectionRefreshesOnItsFirstRead() async throws {
        let harness = try Harness()
        _ = try await harness.repositories.tasks.tasks()
        _ = try await harness.repositories.catalog.products(forceRefresh: false)
        #expect(await harness.refresher.calls == [.tasks, .products])
    }

    @Test func searchesFollowThePolicyToo() async throws {
        let (harness, repository) = try await loaded(policy: FreshnessPolicy(maxAge: .seconds(120)))
        await pullSolarisOnRefresh(harness)

        _ = try await repository.books(matching: "sol")
        #expect(await harness.refresher.callCount(.books) == 1)

        harness.clock.advance(by: .seconds(200))
        let page = try await repository.books(matching: "sol")
        #expect(await harness.refresher.callCount(.books) == 2)
        #expect(titles(page.value.items) == ["Solaris"])
    }

    @Test func anUnchangedRefreshKeepsTheInMemoryCopy() async throws {
        // GIVEN a loaded repository, and a store changed behind its back (another process)
        let (harness, repository) = try await loaded(policy: FreshnessPolicy(maxAge: .seconds(120)))
        try harness.store.pull([try Wire.book("b2", title: "Solaris", lastModified: 2000)], into: .books)

        // WHEN a refresh reports that nothing changed (a 304)
        harness.clock.advance(by: .seconds(200))
        let kept = try await repository.load()

        // THEN the copy is not read again; invalidating makes the next read see the store
        #expect(titles(kept.value) == ["Dune"])
        await repository.invalidate()
        #expect(titles(try await repository.load().value) == ["Dune", "Solaris"])
        #expect(await harness.refresher.callCount(.books) == 2)
    }
}
