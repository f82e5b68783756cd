import Synchronization

// MARK: - CallLog

/// Records the values a callback was called with, from any thread, in call order.
public final class CallLog<Value: Sendable>: Sendable {
    private let log = Mutex<[Value]>([])

    public init() {}

    public var values: [Value] { log.withLock { $0 } }

    public func record(_ value: Value) {
        log.withLock { $0.append(value) }
    }
}
