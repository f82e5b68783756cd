import Domain
import Foundation
import Repositories
import Storage
import Testing
import TestSupport

@Suite("Repositories: concurrent reads share one refresh", .timeLimit(.minutes(1)))
struct SingleFlightTests {
    /// A harness whose repositories pass `joined` each time a read joins a books refresh.
    private func harness(joined: Checkpoint) throws -> Harness {
        try Harness(onEvent: { event in
            if event == .refreshJoined(.books) { joined.pass() }
        })
    }

    @Test func twoConcurrentLoadsMakeOneRefreshAndBothGetItsResult() async throws {
        let joined = Checkpoint()
        let harness = try harness(joined: joined)
        let store = harness.store
        let gate = SuspensionGate<RefreshSummary>()
        await harness.refresher.enqueue(.gate(gate), for: .books)
        await harness.refresher.onRefresh(.books) {
            try store.pull([try Wire.book("b1", title: "Dune")], into: .books)
            return RefreshSummary(changedRecords: 1)
        }
        let repository = harness.books()

        // WHEN one load is waiting for the refresh and a second load comes in
        let first = Task { try await repository.load() }
        await gate.arrival()
        let second = Task { try await repository.load(forceRefresh: true) }
        await joined.reached()

        // THEN releasing the one refresh answers both
        await gate.open(with: .unchanged)
        let results = try await [first.value, second.value]
        #expect(results.map { titles($0.value) } == [["Dune"], ["Dune"]])
        #expect(results.allSatisfy { $0.refreshError == nil && !$0.isStale })
        #expect(await harness.refresher.callCount(.books) == 1)
        #expect(await gate.arrivalCount == 1)
    }

    @Test func concurrentReadsThroughTheDomainPortShareOneRefresh() async throws {
        let joined = Checkpoint()
        let harness = try harness(joined: joined)
        let gate = SuspensionGate<RefreshSummary>()
        await harness.refresher.enqueue(.gate(gate), for: .books)
        try harness.store.pull([try Wire.book("b1", title: "Dune")], into: .books)
        let service: any BookService = harness.books()

        let first = Task { try await service.books(forceRefresh: false) }
        await gate.arrival()
        let second = Task { try await service.books(forceRefresh: false) }
        let third = Task { try await service.books(forceRefresh: false) }
        await joined.reached()
        await joined.reached()

        await gate.open(with: .unchanged)
        #expect(try await titles(first.value) == ["Dune"])
        #expect(try await titles(second.value) == ["Dune"])
        #expect(try await titles(third.value) == ["Dune"])
        #expect(await harness.refresher.callCount(.books) == 1)
    }

    @Test func aSharedFailureReachesEveryReadThatWaited() async throws {
        let joined = Checkpoint()
        let harness = try harness(joined: joined)
        let gate = SuspensionGate<RefreshSummary>()
        await harness.refresher.enqueue(.gate(gate), for: .books)
        let repository = harness.books()

        let first = Task { try await repository.load() }
        await gate.arrival()
        let second = Task { try await repository.load() }
        await joined.reached()
        await gate.fail(with: FakeError("offline"))

        for result in try await [first.value, second.value] {
            #expect(result.refreshError as? FakeError == FakeError("offline"))
            #expect(!result.hasCachedData)
        }
        #expect(await harness.refresher.callCount(.books) == 1)
    }

    @Test func differentCollectionsRefreshIndependently() async throws {
        let harness = try Harness()
        let gate = SuspensionGate<RefreshSummary>()
        await harness.refresher.enqueue(.gate(gate), for: .books)
        let repositories = harness.repositories

        // WHILE books wait for their refresh, notes refresh and answer on their own
        let books = Task { try await repositories.books.load() }
        await gate.arrival()
        _ = try await repositories.notes.loadNotes()
        #expect(await harness.refresher.calls == [.books, .notes])

        await gate.open(with: .unchanged)
        _ = try await books.value
        #expect(await harness.refresher.callCount(.books) == 1)
    }

    @Test func aCancelledReadDoesNotCancelTheRefreshOthersShare() async throws {
        let joined = Checkpoint()
        let harness = try harness(joined: joined)
        let store = harness.store
        let gate = SuspensionGate<RefreshSummary>()
        await harness.refresher.enqueue(.gate(gate), for: .books)
        await harness.refresher.onRefresh(.books) {
            try store.pull([try Wire.book("b1", title: "Dune")], into: .books)
            return RefreshSummary(changedRecords: 1)
        }
        let repository = harness.books()

        let cancelled = Task { try await repository.load() }
        await gate.arrival()
        let kept = Task { try await repository.load() }
        await joined.reached()

        // WHEN the first read is cancelled, it stops waiting at once (the gate is still shut)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(await gate.waitingCount == 1)

        // THEN the refresh goes on and answers the read still waiting
        await gate.open(with: .unchanged)
        #expect(titles(try await kept.value.value) == ["Dune"])
        #expect(await harness.refresher.callCount(.books) == 1)
    }
}
