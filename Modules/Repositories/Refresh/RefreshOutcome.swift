import Domain

// MARK: - RefreshOutcome

/// How one refresh ended, as every read that shared it sees it.
public typealias RefreshOutcome = Result<RefreshSummary, any Error>
