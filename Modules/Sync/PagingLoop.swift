import Domain
import Foundation
import Services

// MARK: - The paging loop

extension SyncRun {
    /// Reads a record list from its first page to its last: the one paging loop of a run,
    /// which a collection's pull (`pullCollection`), a reconciliation's look-ups by id
    /// (`Reconciliation.byID`) and a migration's list of envelopes (`closeMigrationIfDone`) all
    /// go through.
    ///
    /// Each page is checked by the list's `PagingGuard` (a `Next-Page` on this list, never
    /// followed twice; pages that move; a bound on pages) and counted against the run's
    /// `SyncOptions.maximumPages`, then handed to `take`. While `take` stores it, the next
    /// page is already asked for (`PageFetchAhead`) unless the server asked clients to back
    /// off; a page that carried `Backoff` is the last one taken. Where the next page comes
    /// from is `PullContinuation`'s decision: the page asked for ahead, or the rest of the
    /// list from the cursor (`fromCursor`) when the page named no URL to follow or the page
    /// asked for ahead failed in a way the run retries. Every wait ends: a page's request
    /// with the transport's timeouts, and the requests from the cursor with the run's
    /// bounded retries.
    /// - Parameters:
    ///   - first: the list's first page, already read.
    ///   - guardrail: the list's guard, from where the list started.
    ///   - ahead: the list's requests made ahead; stopped when the loop ends.
    ///   - fromCursor: the rest of the list after the highest stamp taken so far (the
    ///     guard's), with the run's retries; nil when nothing follows (a 304).
    ///   - take: stores or keeps one page; called for each page in order.
    func readPages(
        from first: RecordPage, guardrail: PagingGuard, ahead: PageFetchAhead,
        fromCursor: (_ highest: Int64?) async throws -> RecordPage?, take: (RecordPage) async throws -> Void
    ) async throws {
        var guardrail = guardrail
        var page = first
        defer { ahead.stop() }
        while true {
            noteBackoff(page.backoff)
            try guardrail.check(page)
            try countPage()
            let fetchedAhead = PullContinuation.fetchAhead(after: page.next, stopsForBackoff: stopsForBackoff)
                .map { ahead.page(at: $0) }
            do {
                try await take(page)
            } catch {
                fetchedAhead?.cancel()
                throw error
            }
            if stopsForBackoff {
                fetchedAhead?.cancel()
                ahead.stop()
            }
            try honourBackoff()
            guard let next = try await nextPage(after: page, fetchedAhead: fetchedAhead, fromCursor: { try await fromCursor(guardrail.highest) })
            else { return }
            page = next
        }
    }

    /// The page after `page`, nil when the list is complete.
    private func nextPage(
        after page: RecordPage, fetchedAhead: Task<RecordPage, any Error>?, fromCursor: () async throws -> RecordPage?
    ) async throws -> RecordPage? {
        var next = PullContinuation.afterApplying(page.next, fetchedAhead: fetchedAhead != nil)
        if next == .awaitFetchedAhead, let fetchedAhead {
            report.requests += 1
            do {
                return try await fetchedAhead.value
            } catch {
                guard let after = PullContinuation.afterFetchAheadFailure(error) else { throw error }
                next = after
            }
        }
        guard next == .requestFromCursor else { return nil }
        let answer = try await fromCursor()
        return PullContinuation.continues(withAnswer: answer) ? answer : nil
    }

    /// Counts a page against the run's `maximumPages`.
    /// - Throws: `PagingError.tooManyPages` past the maximum.
    func countPage() throws {
        pagesPulled += 1
        guard pagesPulled <= options.maximumPages else { throw PagingError.tooManyPages(limit: options.maximumPages) }
    }
}
