import Sync
import Testing

@Suite("Retry policy")
struct RetryPolicyTests {
    let policy = RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(100), maxDelay: .seconds(1))

    @Test func ceilingsGrowExponentiallyAndAreCapped() {
        #expect((1...6).map { policy.ceiling(beforeRetry: $0) }
            == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
    }

    @Test func jitterStaysWithinTheCeiling() {
        var system = SystemRandomNumberGenerator()
        for _ in 0..<100 { #expect(policy.delay(beforeRetry: 2, using: &system) <= .milliseconds(200)) }
    }

    @Test func atLeastOneAttempt() {
        #expect(RetryPolicy(maxAttempts: 0).maxAttempts == 1)
        #expect(RetryPolicy.none.maxAttempts == 1)
    }
}
