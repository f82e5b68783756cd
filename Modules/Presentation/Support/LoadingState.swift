// MARK: - LoadingState

/// Where a screen's data is in its life: not asked for yet, on its way, there, or
/// failed.
///
/// `loading` and `failed` keep the value shown before, so a refresh or a failed
/// refresh never blanks a screen that already had data: the reader keeps what they
/// saw and gets a message next to it.
public enum LoadingState<Value> {
    /// Nothing asked for yet.
    case idle
    /// A load is in flight; `previous` is what was shown before it started.
    case loading(previous: Value?)
    /// The last load succeeded.
    case loaded(Value)
    /// The last load failed; `previous` is what was shown before it started.
    case failed(message: String, previous: Value?)

    /// The value to show: the loaded one, or the one kept while loading or after a failure.
    public var value: Value? {
        switch self {
        case .idle: nil
        case .loading(let previous): previous
        case .loaded(let value): value
        case .failed(_, let previous): previous
        }
    }

    public var isLoading: Bool {
        if case .loading = self { return true }
        return false
    }

    /// The message of a failed load, nil in every other state.
    public var failureMessage: String? {
        if case .failed(let message, _) = self { return message }
        return nil
    }

    /// Whether a load has ever succeeded or kept a value.
    public var hasValue: Bool { value != nil }

    // MARK: Transitions

    /// The state while a new load runs: keeps the value on screen.
    public func startingLoad() -> LoadingState {
        .loading(previous: value)
    }

    /// The state after a load failed: keeps the value on screen.
    public func failing(_ message: String) -> LoadingState {
        .failed(message: message, previous: value)
    }

    /// Applies a local change (an add, an edit) to the value on screen, keeping the
    /// state's case; a state without a value stays as it is.
    public func mapValue(_ transform: (Value) -> Value) -> LoadingState {
        switch self {
        case .idle: .idle
        case .loading(let previous): .loading(previous: previous.map(transform))
        case .loaded(let value): .loaded(transform(value))
        case .failed(let message, let previous): .failed(message: message, previous: previous.map(transform))
        }
    }
}

// MARK: - Cancelled loads

extension LoadingState {
    /// The state to go back to when a load is cancelled: the settled state (`loaded`,
    /// `failed` or `idle`) the load interrupted, with the value now on screen, which
    /// may hold local changes made meanwhile.
    func cancellingLoad(settledBefore settled: LoadingState) -> LoadingState {
        switch settled {
        case .failed(let message, _):
            return .failed(message: message, previous: value)
        case .idle, .loading, .loaded:
            return value.map { .loaded($0) } ?? .idle
        }
    }
}

extension LoadingState: Sendable where Value: Sendable {}
extension LoadingState: Equatable where Value: Equatable {}
extension LoadingState: Hashable where Value: Hashable {}
