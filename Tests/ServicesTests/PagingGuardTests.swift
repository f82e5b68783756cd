import Domain
import Foundation
import Records
import Services
import Testing

/// The one guard of a list read page after page, over pages alone: no server, no store.
@Suite struct PagingGuardTests {
    private static let base = "http://127.0.0.1:1/v1"
    private static let books = base + "/buckets/default/collections/books/records"

    /// A page of records stamped `stamps`, whose `Next-Page` is `next` (a URL), more by
    /// cursor (`""`), or nothing (nil).
    private static func page(_ stamps: [Int64], next: String?) -> RecordPage {
        let records = stamps.map { RawRecord(id: "r\($0)", lastModified: $0, json: Data(#"{"id":"r\#($0)"}"#.utf8)) }
        let continuation: PageContinuation = switch next {
        case nil: .done
        case ""?: .byCursor
        case let url?: .url(url)
        }
        return RecordPage(records: records, next: continuation)
    }

    /// Pages, checked in order, and how their reading ends.
    struct Reading: Sendable, CustomTestStringConvertible {
        let name: String
        var path = KintoCollectionPath(.books)
        var since: Int64?
        var advancing = true
        var maximumPages = Int.max
        let pages: [RecordPage]
        /// nil: every page passes.
        let error: PagingError?
        var testDescription: String { name }
    }

    static let readings: [Reading] = [
        Reading(name: "pages that move and end", pages: [
            page([1, 2], next: books + "?_token=a"), page([3, 4], next: books + "?_token=b"), page([5], next: nil),
        ], error: nil),
        Reading(name: "more by cursor, then the end", since: 10, pages: [page([11], next: ""), page([12], next: nil)], error: nil),
        Reading(name: "Kinto names the default bucket by its id", pages: [
            page([1], next: base + "/buckets/23c27d45-1c8f-6992-70db-6a2eaca21c41/collections/books/records?_limit=1&_token=x"),
            page([2], next: nil),
        ], error: nil),
        Reading(name: "a link to itself", pages: [page([1], next: books + "?_token=s"), page([2], next: books + "?_token=s")],
                error: .repeatedNextPage("books", url: URLRedaction.redacted(books + "?_token=s"))),
        Reading(name: "a page behind the cursor", since: 10, pages: [page([5, 9], next: books + "?_token=a")],
                error: .notAdvancing("books", cursor: 10, pageHighest: 9)),
        Reading(name: "a page that does not move", pages: [page([3], next: books + "?_token=a"), page([2, 3], next: books + "?_token=b")],
                error: .notAdvancing("books", cursor: 3, pageHighest: 3)),
        Reading(name: "an empty page with more to come", pages: [page([], next: "")],
                error: .notAdvancing("books", cursor: nil, pageHighest: nil)),
        Reading(name: "an empty last page", since: 10, pages: [page([], next: nil)], error: nil),
        Reading(name: "newest first: going back is moving", advancing: false, pages: [
            page([9, 8], next: books + "?_token=a"), page([7], next: nil),
        ], error: nil),
        Reading(name: "another collection", pages: [page([1], next: base + "/buckets/default/collections/notes/records?_token=a")],
                error: .offTheList("books", url: URLRedaction.redacted(base + "/buckets/default/collections/notes/records?_token=a"))),
        Reading(name: "another bucket than the one named", path: KintoCollectionPath(.products),
                pages: [page([1], next: base + "/buckets/mine/collections/products/records?_token=a")],
                error: .offTheList("products", url: URLRedaction.redacted(base + "/buckets/mine/collections/products/records?_token=a"))),
        Reading(name: "a record of the list", pages: [page([1], next: books + "/r1")],
                error: .offTheList("books", url: URLRedaction.redacted(books + "/r1"))),
        Reading(name: "another server", pages: [page([1], next: "http://elsewhere:1/v1/buckets/default/collections/books/records?_token=a")],
                error: .offTheList("books", url: URLRedaction.redacted("http://elsewhere:1/v1/buckets/default/collections/books/records?_token=a"))),
        Reading(name: "another API root", pages: [page([1], next: "http://127.0.0.1:1/v2/buckets/default/collections/books/records")],
                error: .offTheList("books", url: URLRedaction.redacted("http://127.0.0.1:1/v2/buckets/default/collections/books/records"))),
        Reading(name: "a bucket that climbs out", pages: [page([1], next: base + "/buckets/../collections/books/records")],
                error: .offTheList("books", url: URLRedaction.redacted(base + "/buckets/../collections/books/records"))),
        Reading(name: "a fragment", pages: [page([1], next: books + "#/buckets/default/collections/books/records")],
                error: .offTheList("books", url: URLRedaction.redacted(books + "#/buckets/default/collections/books/records"))),
        Reading(name: "more pages than allowed", maximumPages: 2, pages: [
            page([1], next: books + "?_token=a"), page([2], next: books + "?_token=b"), page([3], next: nil),
        ], error: .tooManyPages(limit: 2)),
    ]

    @Test(arguments: readings)
    func aListsPagesAreCheckedInOrder(_ reading: Reading) {
        var guardrail = PagingGuard(
            path: reading.path, baseURL: Self.base, since: reading.since, advancing: reading.advancing, maximumPages: reading.maximumPages)
        var met: PagingError?
        for page in reading.pages {
            do {
                try guardrail.check(page)
            } catch {
                met = error
                break
            }
        }
        #expect(met == reading.error)
    }

    @Test func theHighestStampReadIsWhereTheRestOfTheListStarts() throws {
        var guardrail = PagingGuard(path: KintoCollectionPath(.books), baseURL: Self.base, since: 10)
        #expect(guardrail.highest == 10)
        try guardrail.check(Self.page([12, 15], next: ""))
        #expect(guardrail.highest == 15)
        #expect(guardrail.pages == 1)
    }

    @Test func aGuardWithoutItsBaseURLStillKeepsTheListsPath() throws {
        var guardrail = PagingGuard(collection: .books, cursor: nil)
        try guardrail.check(Self.page([1], next: "https://kinto.example/v1/buckets/default/collections/books/records?_token=a"))
        #expect(throws: PagingError.self) {
            try guardrail.check(Self.page([2], next: "https://kinto.example/v1/buckets/default/collections/tasks/records?_token=b"))
        }
    }
}
