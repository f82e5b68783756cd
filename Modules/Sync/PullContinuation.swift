import Foundation
import Services

// MARK: - PullContinuation

/// How a record list is read from one page to the next, as explicit decisions: the
/// paging loop (`SyncRun.readPages`, for a pull and a reconciliation's look-ups by id)
/// asks, does the I/O the answer names, and asks again.
/// Nothing here touches the store or the network (`PullContinuationTests`).
///
/// A page's headers name the next page (Kinto's `Next-Page`); it is asked for ahead
/// while the page is stored (`PageFetchAhead`), unless the server asked clients to back
/// off. A page asked for ahead that fails transiently is not retried as it was: the
/// rest of the list is asked for from the cursor, with the run's retries, which says
/// exactly how far the reading got.
enum PullContinuation {
    /// Where the next page comes from, once a page is applied.
    enum Next: Equatable {
        /// It was asked for ahead: wait for it.
        case awaitFetchedAhead
        /// Ask for the rest of the list from the stored cursor.
        case requestFromCursor
        /// The list is complete.
        case finished
    }

    /// The next page to ask for ahead of storing this one, nil when none: the list is
    /// complete, or the server asked clients to back off (the run stops after this page).
    static func fetchAhead(after next: PageContinuation, stopsForBackoff: Bool) -> String? {
        stopsForBackoff ? nil : next.url
    }

    /// After a page is applied. - Parameter fetchedAhead: its next page was asked for ahead.
    static func afterApplying(_ next: PageContinuation, fetchedAhead: Bool) -> Next {
        if fetchedAhead { return .awaitFetchedAhead }
        return next.morePagesFollow ? .requestFromCursor : .finished
    }

    /// A page asked for ahead failed. - Returns: `.requestFromCursor` for a failure the
    /// run retries (`FailureClass.isRetriedWithinRun`); nil when the failure ends the pull
    /// (the caller rethrows it): a throttled server is not asked again before its wait.
    static func afterFetchAheadFailure(_ error: any Error) -> Next? {
        FailureClass(error).isRetriedWithinRun ? .requestFromCursor : nil
    }

    /// The request from the cursor answered. - Parameter page: nil for a 304 (nothing
    /// after the cursor). - Returns: whether the pull goes on with `page`.
    static func continues(withAnswer page: RecordPage?) -> Bool {
        page != nil
    }
}
