import Services
import Synchronization

// MARK: - PageFetchAhead

/// A collection's next pages, asked for ahead of the pull: a page's request leaves as
/// soon as the previous page's headers name it (Kinto's `Next-Page`), while that page's
/// body is still arriving and being scanned and the page before it is being stored.
///
/// Kinto can only say where the next page starts in the answer before it, so a pull is
/// a chain of requests; without this the next request waited for the whole previous
/// page to arrive, be scanned and reach the pull loop. On a slow link most of a page's
/// time is its body, which the next request now overlaps.
///
/// Bounded: at most one page is asked for ahead of the one the pull waits for. A pull
/// slower than the server leaves the next request to the loop (`page(at:)`), so no more
/// than three pages are ever in memory: the one being stored, the one waited for and
/// one ahead.
final class PageFetchAhead: Sendable {
    private struct State {
        /// Requests made ahead, by URL, not yet taken by the pull.
        var ahead: [String: Task<RecordPage, any Error>] = [:]
        var stopped = false
        /// Requests made, ahead or for the pull.
        var made = 0
    }

    private let service: KintoCollectionService
    private let depth = 1
    private let maximumRequests: Int
    private let state = Mutex(State())

    /// - Parameter maximumRequests: the most requests this pull may make: nothing is
    ///   asked for ahead past it, so a run bounded to N pages makes no more requests
    ///   than it did without fetching ahead.
    init(service: KintoCollectionService, maximumRequests: Int = .max) {
        self.service = service
        self.maximumRequests = maximumRequests
    }

    deinit {
        stop()
    }

    /// The page at `url`: the request made ahead for it, or one made now. A request
    /// made ahead for another URL is cancelled: the pull follows one chain, and a
    /// page asked for again (a retry) names its next page with a new token.
    func page(at url: String) -> Task<RecordPage, any Error> {
        let (page, stale) = state.withLock { state in
            let madeAhead = state.ahead.removeValue(forKey: url)
            defer { state.ahead.removeAll() }
            if madeAhead == nil { state.made += 1 }
            return (madeAhead ?? request(url), Array(state.ahead.values))
        }
        for task in stale { task.cancel() }
        return page
    }

    /// The request made ahead for `url`, if any, left for the pull to take (for tests).
    func requestedAhead(_ url: String) -> Task<RecordPage, any Error>? {
        state.withLock { $0.ahead[url] }
    }

    /// The hook a request gives the transport: the next page's URL, as soon as the
    /// headers that name it arrive.
    var onNextPage: @Sendable (String) -> Void {
        { [weak self] url in self?.ask(url) }
    }

    /// Cancels every request made ahead and makes no more (the pull stopped, or the
    /// server asked clients to slow down).
    func stop() {
        let cancelled = state.withLock { state in
            state.stopped = true
            defer { state.ahead.removeAll() }
            return Array(state.ahead.values)
        }
        for task in cancelled { task.cancel() }
    }

    // MARK: Requests

    private func ask(_ url: String) {
        // NB: a link off the list is never asked for, not even ahead: the loop's guard will refuse it.
        guard PagingGuard.names(service.path, under: service.client.configuration.baseURL, url) else { return }
        state.withLock { state in
            guard !state.stopped, state.ahead.count < depth, state.ahead[url] == nil, state.made < maximumRequests else { return }
            state.made += 1
            state.ahead[url] = request(url)
        }
    }

    /// NB: called with the lock held; creating a task does not run it.
    private func request(_ url: String) -> Task<RecordPage, any Error> {
        let service = service
        let onNextPage = onNextPage
        return Task { try await service.page(at: url, onNextPage: onNextPage) }
    }
}
