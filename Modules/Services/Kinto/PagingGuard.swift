import Vocabulary
import Foundation

// MARK: - PagingGuard

/// The one guard of a record list read page after page: whatever a server's `Next-Page`
/// says, the reading ends, and it stays on the list it started.
///
/// A server's `Next-Page` is trusted for where to go, never for whether the list ends nor
/// for what list it is. Each page about to be taken is checked (`check(_:)`):
/// - its `Next-Page` names this list: the same server and API root, this collection's
///   records (in this bucket, or any one bucket for Kinto's `default` alias, which a
///   server names by its id), never another list whose records would be stored here;
/// - its `Next-Page` was not followed before in this list;
/// - on a list sorted by `last_modified` (`advancing`), a page with more to come brings
///   a record past everything read so far (the cursor the list started from included);
/// - no more than `maximumPages` pages are read. (The sync engine bounds all the lists of
///   a run together as well: `SyncOptions.maximumPages`.)
///
/// Without these a link that leads back, or a page that never moves, would keep the run —
/// and the account's lock — busy until it is killed. Every wait for a page ends with the
/// transport's timeouts (`Timeouts`).
public struct PagingGuard: Sendable {
    /// The list read: its collection, for messages and for where a `Next-Page` may lead.
    public let path: KintoCollectionPath
    /// The API root its `Next-Page`s must stay under (`APIClient.Configuration.baseURL`);
    /// nil when only the list's path is checked (`APIClient` still refuses another origin).
    public let baseURL: String?
    /// Sorted by `last_modified`, oldest first: each page moves past the last.
    public let advancing: Bool
    public let maximumPages: Int
    /// The highest `last_modified` read so far: where the list started, then each page's.
    public private(set) var highest: Int64?
    /// Pages checked so far.
    public private(set) var pages = 0
    private var seenLinks: Set<String> = []

    /// - Parameters:
    ///   - path: the collection listed.
    ///   - baseURL: the API root the list was asked for under.
    ///   - since: where the list starts (`_since`), nil for the whole list.
    ///   - advancing: the list is sorted by `last_modified`, oldest first.
    ///   - maximumPages: the most pages this list may have.
    public init(path: KintoCollectionPath, baseURL: String?, since: Int64?, advancing: Bool = true, maximumPages: Int = .max) {
        self.path = path
        self.baseURL = baseURL
        self.highest = since
        self.advancing = advancing
        self.maximumPages = max(1, maximumPages)
    }

    /// The guard of a list `service` reads, from `since` on.
    public init(listing service: KintoCollectionService, since: Int64?, advancing: Bool = true, maximumPages: Int = .max) {
        self.init(path: service.path, baseURL: service.client.configuration.baseURL, since: since, advancing: advancing, maximumPages: maximumPages)
    }

    /// The guard of one of Shelf's collections sorted by `last_modified`, from `cursor` on.
    public init(collection: CollectionName, cursor: Int64?) {
        self.init(path: KintoCollectionPath(collection), baseURL: nil, since: cursor)
    }

    /// Checks the page about to be taken.
    /// - Throws: `PagingError` when its `Next-Page` leads off the list or back to a page
    ///   already read, when more pages follow but it brought nothing past what was read,
    ///   or past `maximumPages`.
    public mutating func check(_ page: RecordPage) throws(PagingError) {
        pages += 1
        guard pages <= maximumPages else { throw .tooManyPages(limit: maximumPages) }
        if let next = page.next.url {
            guard Self.names(path, under: baseURL, next) else {
                throw .offTheList(path.collection, url: URLRedaction.redacted(next))
            }
            guard seenLinks.insert(next).inserted else {
                throw .repeatedNextPage(path.collection, url: URLRedaction.redacted(next))
            }
        }
        let pageHighest = page.records.map(\.lastModified).max()
        if advancing, page.next.morePagesFollow {
            guard let pageHighest else { throw .notAdvancing(path.collection, cursor: highest, pageHighest: nil) }
            if let highest, pageHighest <= highest {
                throw .notAdvancing(path.collection, cursor: highest, pageHighest: pageHighest)
            }
        }
        if let pageHighest { highest = max(highest ?? pageHighest, pageHighest) }
    }

    // MARK: Where a Next-Page may lead

    /// Whether `url` is a page of `path`'s records: `<base>/buckets/<bucket>/collections/<collection>/records`,
    /// then a query or nothing. The bucket is `path`'s, or any one bucket id when `path`
    /// names Kinto's `default` alias (Kinto names the user's bucket by its id in `Next-Page`).
    /// What a page may be asked for by, ahead of its check too (`PageFetchAhead`).
    public static func names(_ path: KintoCollectionPath, under baseURL: String?, _ url: String) -> Bool {
        let address = url.prefix { $0 != "?" && $0 != "#" }
        guard !url.contains("#") else { return false }
        let tail = "/collections/\(path.collection)/records"
        guard address.hasSuffix(tail) else { return false }
        let head = address.dropLast(tail.count)
        guard let bucketStart = head.range(of: "/buckets/", options: .backwards) else { return false }
        let bucket = head[bucketStart.upperBound...]
        guard !bucket.isEmpty, bucket != ".", bucket != "..",
              bucket.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
              path.bucket == KintoCollectionPath.userBucket || bucket == path.bucket
        else { return false }
        guard let baseURL else { return true }
        return head[..<bucketStart.lowerBound] == baseURL
    }
}

// MARK: - PagingError

/// A list's reading stopped because the server's paging would not end, or led elsewhere.
public enum PagingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A `Next-Page` link that was already followed in this list.
    case repeatedNextPage(String, url: String)
    /// A page, with more said to follow, whose records are all at or before what was read
    /// (`cursor`), or that has none.
    case notAdvancing(String, cursor: Int64?, pageHighest: Int64?)
    /// A `Next-Page` that names another list: another collection, bucket or server.
    case offTheList(String, url: String)
    /// The run (or the list) read its most pages.
    case tooManyPages(limit: Int)

    public var description: String {
        switch self {
        case .repeatedNextPage(let collection, let url):
            "pulling \(collection): the server's Next-Page leads back to a page already fetched (\(url)); stopped instead of looping"
        case .notAdvancing(let collection, let cursor?, let pageHighest?):
            "pulling \(collection): a page does not move past the cursor (its newest record is at \(pageHighest), the cursor at \(cursor)) yet more pages are announced; stopped instead of looping"
        case .notAdvancing(let collection, _, _):
            "pulling \(collection): a page brings no record yet more pages are announced; stopped instead of looping"
        case .offTheList(let collection, let url):
            "pulling \(collection): the server's Next-Page leads to another list (\(url)); not following it"
        case .tooManyPages(let limit):
            "pulled \(limit) pages in one run, the most one run pulls; the next run continues from here"
        }
    }
}
