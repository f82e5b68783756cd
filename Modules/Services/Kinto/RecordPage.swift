import Foundation
import Records

// MARK: - RecordPage

/// One page of a record list, as the sync engine persists it: records, then where the
/// next page is.
public struct RecordPage: Sendable, Hashable {
    /// In server order; with `_since`, tombstones (`deleted`) are among them.
    public var records: [RawRecord]
    /// The absolute URL of the next page (Kinto's `Next-Page`); nil on the last page.
    /// Pass it to `KintoCollectionService.page(at:)`. Tokens expire after ~10 minutes.
    public var nextPage: String?
    /// The collection's timestamp when the list was read (Kinto's `ETag`).
    public var etag: ETag?
    /// `Backoff`, in seconds, when the server asked clients to slow down.
    public var backoff: TimeInterval?

    public init(records: [RawRecord], nextPage: String? = nil, etag: ETag? = nil, backoff: TimeInterval? = nil) {
        self.records = records
        self.nextPage = nextPage
        self.etag = etag
        self.backoff = backoff
    }
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
