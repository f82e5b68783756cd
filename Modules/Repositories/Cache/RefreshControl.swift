// MARK: - RefreshControl

/// The three things callers do with a repository's background refreshes — wait for
/// one, cancel it, drop the in-memory copy — written once for every repository.
public struct RefreshControl: Sendable {
    private let wait: @Sendable () async -> RefreshOutcome?
    private let cancel: @Sendable () async -> Void
    private let forget: @Sendable () async -> Void

    init<Mapping>(_ cache: CachedCollection<Mapping>) {
        wait = { await cache.waitForRefresh() }
        cancel = { await cache.cancelRefresh() }
        forget = { await cache.invalidate() }
    }

    fileprivate func waitForRefresh() async -> RefreshOutcome? { await wait() }
    fileprivate func cancelRefresh() async { await cancel() }
    fileprivate func invalidate() async { await forget() }
}

// MARK: - RefreshControlling

/// A repository whose reads may leave a refresh running behind them.
public protocol RefreshControlling: Sendable {
    var refreshControl: RefreshControl { get }
}

extension RefreshControlling {
    /// Waits for the refresh in flight (e.g. behind a stale read), if any; returns how the
    /// latest refresh ended. Reads after it see that refresh's data.
    @discardableResult
    public func waitForRefresh() async -> RefreshOutcome? {
        await refreshControl.waitForRefresh()
    }

    /// Cancels the refresh in flight, if any.
    public func cancelRefresh() async {
        await refreshControl.cancelRefresh()
    }

    /// Forgets the in-memory copy; the next read decodes the store again.
    public func invalidate() async {
        await refreshControl.invalidate()
    }
}
