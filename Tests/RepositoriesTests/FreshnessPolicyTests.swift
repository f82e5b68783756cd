import Foundation
import Repositories
import Testing

@Suite("FreshnessPolicy: when a read goes to the network")
struct FreshnessPolicyTests {
    private let policy = FreshnessPolicy(maxAge: .seconds(120), staleWhileRevalidate: .seconds(600))
    private let fetched = Date(timeIntervalSince1970: 1_000_000)

    private func decision(after seconds: Double, force: Bool = false) -> FreshnessDecision {
        policy.decision(fetchedAt: fetched, now: fetched.addingTimeInterval(seconds), force: force)
    }

    @Test func youngerThanMaxAgeIsServedAsItIs() {
        #expect(decision(after: 0) == .serveCached)
        #expect(decision(after: 119.9) == .serveCached)
    }

    @Test func fromMaxAgeThroughTheWindowItIsServedWhileRevalidating() {
        #expect(decision(after: 120) == .serveAndRevalidate)
        #expect(decision(after: 719.9) == .serveAndRevalidate)
    }

    @Test func pastTheWindowItRefreshesFirst() {
        #expect(decision(after: 720) == .refreshFirst)
        #expect(decision(after: 86_400) == .refreshFirst)
    }

    @Test func neverFetchedRefreshesFirst() {
        #expect(policy.decision(fetchedAt: nil, now: fetched, force: false) == .refreshFirst)
        #expect(!policy.isFresh(fetchedAt: nil, now: fetched))
    }

    @Test func forceRefreshesFirstEvenWhenFresh() {
        #expect(decision(after: 1, force: true) == .refreshFirst)
    }

    @Test func aFetchTimeInTheFutureIsNotTrusted() {
        // The clock was set back: no age can be computed, so the data is not fresh.
        #expect(decision(after: -30) == .refreshFirst)
        #expect(!policy.isFresh(fetchedAt: fetched, now: fetched.addingTimeInterval(-30)))
    }

    @Test func withoutAWindowStaleDataRefreshesFirst() {
        let strict = FreshnessPolicy(maxAge: .seconds(120))
        #expect(strict.decision(fetchedAt: fetched, now: fetched.addingTimeInterval(120), force: false) == .refreshFirst)
        #expect(strict.decision(fetchedAt: fetched, now: fetched.addingTimeInterval(60), force: false) == .serveCached)
    }

    @Test func subSecondDurationsCount() {
        let quick = FreshnessPolicy(maxAge: .milliseconds(1500))
        #expect(quick.isFresh(fetchedAt: fetched, now: fetched.addingTimeInterval(1.4)))
        #expect(!quick.isFresh(fetchedAt: fetched, now: fetched.addingTimeInterval(1.5)))
    }
}
