// MARK: - Checkpoint

/// A point in a piece of work that the test can wait for, passed synchronously.
///
/// On the main actor this orders work exactly: a task that calls `pass()` and then an
/// intent runs on until the intent's first suspension before the test, waiting in
/// `reached()`, can run again. That is how a test knows a second call has joined a
/// refresh in flight, without sleeping.
public final class Checkpoint: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// Marks the checkpoint as passed; never suspends.
    public func pass() {
        continuation.yield()
    }

    /// Returns once `pass()` has been called (once per call of `reached()`).
    public func reached() async {
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
    }
}
