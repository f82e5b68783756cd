// MARK: - RetryPolicy

/// How a run retries transient failures (timeouts, refused connections, 5xx): a
/// bounded number of attempts with exponential backoff and full jitter, so a fleet of
/// cron workers that failed together does not retry in lockstep.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included; 1 means no retry.
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(4)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// No retries: for tests and for callers that retry themselves.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The ceiling for the wait before retry number `retry` (1-based): base × 2^(retry-1), capped.
    public func ceiling(beforeRetry retry: Int) -> Duration {
        let exponent = min(max(retry - 1, 0), 30)
        let scaled = baseDelay * (1 << exponent)
        return scaled < maxDelay ? scaled : maxDelay
    }

    /// A random wait in `0...ceiling` ("full jitter").
    public func delay(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = ceiling(beforeRetry: retry)
        let nanos = ceiling.components.seconds * 1_000_000_000 + ceiling.components.attoseconds / 1_000_000_000
        guard nanos > 0 else { return .zero }
        return .nanoseconds(Int64.random(in: 0...nanos, using: &generator))
    }
}
