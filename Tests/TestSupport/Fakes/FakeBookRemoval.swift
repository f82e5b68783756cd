import Domain

// MARK: - FakeBookRemoval

/// A `BookRemoving` that records each call and removes nothing else; the next call
/// fails when a refusal is queued.
public actor FakeBookRemoval: BookRemoving {
    /// Every call, in order: "<id> <mode>".
    public private(set) var calls: [String] = []
    private var refusal: (any Error)?

    public init() {}

    /// The next removal fails with `error`.
    public func refuse(with error: any Error) {
        refusal = error
    }

    public func removeBook(id: Book.ID, mode: BookRemovalMode) async throws -> BookRemovalResult {
        calls.append("\(id) \(mode.rawValue)")
        if let refusal {
            self.refusal = nil
            throw refusal
        }
        return BookRemovalResult(bookID: id, mode: mode)
    }
}
