import Foundation
import Records

// MARK: - RecordPage

/// One page of a record list, as the sync engine persists it: records, then where the
/// rest of the list is.
public struct RecordPage: Sendable, Hashable {
    /// In server order; with `_since`, tombstones (`deleted`) are among them.
    public var records: [RawRecord]
    /// Where the next page is, if more follow.
    public var next: PageContinuation
    /// The collection's timestamp when the list was read (Kinto's `ETag`).
    public var etag: ETag?
    /// `Backoff`, in seconds, when the server asked clients to slow down.
    public var backoff: TimeInterval?

    public init(records: [RawRecord], next: PageContinuation = .done, etag: ETag? = nil, backoff: TimeInterval? = nil) {
        self.records = records
        self.next = next
        self.etag = etag
        self.backoff = backoff
    }
}

// MARK: - PageContinuation

/// Where the rest of a record list is, after one page.
public enum PageContinuation: Sendable, Hashable {
    /// The next page's absolute URL (Kinto's `Next-Page`), for
    /// `KintoCollectionService.page(at:)`. Its token expires after ~10 minutes.
    case url(String)
    /// More records follow, but the page named no URL this client can follow: a batch
    /// sub-response's `Next-Page` names the batch's own host and path. The rest is asked
    /// for from the cursor the page leaves, which is the same list when it is sorted by
    /// `last_modified`.
    case byCursor
    /// This was the last page.
    case done

    /// The next page's URL, when there is one to follow.
    public var url: String? {
        if case .url(let url) = self { return url }
        return nil
    }

    /// Whether more pages follow, by URL or by cursor.
    public var morePagesFollow: Bool { self != .done }
}

// MARK: - PageResult

/// The answer to a first-page request: a page, or "nothing changed" for an `If-None-Match`.
public enum PageResult: Sendable, Hashable {
    /// 304: the collection has not changed since the ETag that was sent.
    case notModified(etag: ETag?, backoff: TimeInterval?)
    case page(RecordPage)

    /// The page, or nil when not modified.
    public var page: RecordPage? {
        if case .page(let page) = self { return page }
        return nil
    }
}
