import Domain
import Foundation
import Repositories
import Storage
import Testing
import TestSupport

@Suite("Repositories: a failed refresh keeps the cached data", .timeLimit(.minutes(1)))
struct RefreshFailureTests {
    private let offline = FakeError("the server did not answer")

    /// A repository that has loaded "Dune" once, with a strict two-minute policy.
    private func loaded() async throws -> (Harness, BookRepository) {
        let harness = try Harness(policy: FreshnessPolicy(maxAge: .seconds(120)))
        try harness.store.pull([try Wire.book("b1", title: "Dune")], into: .books)
        let repository = harness.books()
        _ = try await repository.load()
        return (harness, repository)
    }

    @Test func aFailedRefreshReturnsTheCachedDataWithTheError() async throws {
        let (harness, repository) = try await loaded()
        await harness.refresher.enqueue(.failure(offline), for: .books)

        harness.clock.advance(by: .seconds(300))
        let result = try await repository.load()

        #expect(titles(result.value) == ["Dune"])
        #expect(result.refreshError as? FakeError == offline)
        #expect(result.isStale)
        #expect(result.hasCachedData)
        #expect(result.fetchedAt == SampleShelf.now)
        #expect(await harness.refresher.callCount(.books) == 2)
    }

    @Test func theDomainPortAnswersWithCachedDataWhenARefreshFails() async throws {
        let (harness, repository) = try await loaded()
        await harness.refresher.enqueue(.failure(offline), for: .books)

        harness.clock.advance(by: .seconds(300))
        let books = try await repository.books(forceRefresh: false)

        #expect(titles(books) == ["Dune"])
    }

    @Test func withNothingCachedTheDomainPortThrowsTheRefreshError() async throws {
        let harness = try Harness()
        await harness.refresher.enqueue(.failure(offline), for: .books)
        await harness.refresher.enqueue(.failure(offline), for: .books)
        let repository = harness.books()

        await #expect(throws: FakeError.self) { try await repository.books(forceRefresh: false) }

        let result = try await repository.load()
        #expect(result.value.isEmpty)
        #expect(!result.hasCachedData)
        #expect(result.refreshError as? FakeError == offline)
        #expect(throws: FakeError.self) { try result.valueOrRefreshError() }
    }

    @Test func recordsMadeOfflineCountAsCachedData() async throws {
        // GIVEN a book added before the account ever reached the server
        let harness = try Harness()
        await harness.refresher.enqueue(.failure(offline), for: .books)
        let repository = harness.books()
        let added = try await repository.addBook(title: "Solaris", author: "Stanisław Lem")

        // WHEN the first refresh fails, the port still answers with the local book
        #expect(try await repository.books(forceRefresh: false) == [added])
    }

    @Test func anEmptyCollectionThatWasRefreshedIsCachedData() async throws {
        // The reader has no tasks, and the server said so once: "no tasks" is an answer.
        let harness = try Harness(policy: FreshnessPolicy(maxAge: .seconds(120)))
        let repository = harness.repositories.tasks
        #expect(try await repository.tasks().isEmpty)

        await harness.refresher.enqueue(.failure(offline), for: .tasks)
        harness.clock.advance(by: .seconds(300))
        #expect(try await repository.tasks().isEmpty)
        #expect(try await repository.load().hasCachedData)
    }

    @Test func theNextSuccessClearsTheError() async throws {
        let (harness, repository) = try await loaded()
        await harness.refresher.enqueue(.failure(offline), for: .books)
        harness.clock.advance(by: .seconds(300))
        #expect(try await repository.load().refreshError != nil)

        let retried = try await repository.load()

        #expect(retried.refreshError == nil)
        #expect(!retried.isStale)
        #expect(await harness.refresher.callCount(.books) == 3)
    }

    @Test func aFailedBackgroundRefreshIsReportedByTheNextRead() async throws {
        let harness = try Harness(policy: FreshnessPolicy(maxAge: .seconds(120), staleWhileRevalidate: .seconds(3600)))
        try harness.store.pull([try Wire.book("b1", title: "Dune")], into: .books)
        let repository = harness.books()
        _ = try await repository.load()
        await harness.refresher.enqueue(.failure(offline), for: .books)
        let gate = SuspensionGate<RefreshSummary>()
        await harness.refresher.enqueue(.gate(gate), for: .books)

        // A stale read answers at once; the refresh behind it fails.
        harness.clock.advance(by: .seconds(300))
        #expect(try await repository.load().refreshError == nil)
        let outcome = await repository.waitForRefresh()
        #expect(throws: FakeError.self) { try outcome?.get() }

        // The next read still answers at once, with the failure, and tries again behind.
        let next = try await repository.load()
        #expect(titles(next.value) == ["Dune"])
        #expect(next.refreshError as? FakeError == offline)
        #expect(next.isStale)
        await gate.arrival()
        await gate.open(with: .unchanged)
        await repository.waitForRefresh()
        #expect(try await repository.load().refreshError == nil)
    }
}
