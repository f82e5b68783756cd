// MARK: - FakeReply

/// What a fake answers to one call: a value, an error, or a wait at a gate.
public enum FakeReply<Value: Sendable>: Sendable {
    case value(Value)
    case failure(any Error)
    case gate(SuspensionGate<Value>)

    func resolve() async throws -> Value {
        switch self {
        case .value(let value): return value
        case .failure(let error): throw error
        case .gate(let gate): return try await gate.pass()
        }
    }
}

// MARK: - FakeError

/// An error a fake is told to throw, described by its message.
public struct FakeError: Error, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

// MARK: - Call log

/// The replies queued for a fake's calls, answered in order; when none is queued the
/// fake answers from its own data.
struct ReplyQueue<Value: Sendable>: Sendable {
    private var replies: [FakeReply<Value>] = []

    mutating func enqueue(_ reply: FakeReply<Value>) {
        replies.append(reply)
    }

    mutating func next() -> FakeReply<Value>? {
        replies.isEmpty ? nil : replies.removeFirst()
    }
}
