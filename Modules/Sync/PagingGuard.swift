import Domain
import Foundation
import Services

// MARK: - PagingGuard

/// Makes sure a collection's pull moves forward, page after page.
///
/// A server's `Next-Page` is trusted for where to go, never for whether the pull ends:
/// a link that leads back to a page already fetched, or a page (with more to come)
/// whose records are all at or behind what was already pulled, would otherwise keep
/// the run — and the account's lock — busy until it is killed.
struct PagingGuard {
    let collection: CollectionName
    /// The highest `last_modified` pulled so far: the stored cursor, then each page's.
    private(set) var highest: Int64?
    private var seenLinks: Set<String> = []

    init(collection: CollectionName, cursor: Int64?) {
        self.collection = collection
        self.highest = cursor
    }

    /// Checks the page about to be applied.
    /// - Throws: `PagingError` when its `Next-Page` was followed before, or when more
    ///   pages follow but this one brought nothing past the cursor.
    mutating func check(_ page: RecordPage) throws(PagingError) {
        let pageHighest = page.records.map(\.lastModified).max()
        if let next = page.next.url {
            guard seenLinks.insert(next).inserted else {
                throw .repeatedNextPage(collection, url: URLRedaction.redacted(next))
            }
        }
        if page.next.morePagesFollow, let pageHighest, let highest, pageHighest <= highest {
            throw .notAdvancing(collection, cursor: highest, pageHighest: pageHighest)
        }
        if let pageHighest { highest = max(highest ?? pageHighest, pageHighest) }
    }
}

// MARK: - PagingError

/// A pull stopped because the server's paging would not end.
public enum PagingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A `Next-Page` link that was already followed in this pull.
    case repeatedNextPage(CollectionName, url: String)
    /// A page, with more said to follow, whose records are all at or before the cursor.
    case notAdvancing(CollectionName, cursor: Int64, pageHighest: Int64)
    /// The run pulled `SyncOptions.maximumPages` pages.
    case tooManyPages(limit: Int)

    public var description: String {
        switch self {
        case .repeatedNextPage(let collection, let url):
            "pulling \(collection.rawValue): the server's Next-Page leads back to a page already fetched (\(url)); stopped instead of looping"
        case .notAdvancing(let collection, let cursor, let pageHighest):
            "pulling \(collection.rawValue): a page does not move past the cursor (its newest record is at \(pageHighest), the cursor at \(cursor)) yet more pages are announced; stopped instead of looping"
        case .tooManyPages(let limit):
            "pulled \(limit) pages in one run, the most one run pulls; the next run continues from here"
        }
    }
}
