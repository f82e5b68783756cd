import Foundation
import Services
import Testing
import TestSupport

/// List GETs inside `POST /batch`: paths built from `ListQuery`, answers read as pages
/// by the service, so the sync engine never reads a sub-response's headers or body.
@Suite("Batch list answers")
struct BatchListAnswerTests {
    private let books = KintoCollectionPath(.books)

    @Test func aListOperationsPathComesFromItsQuery() {
        let query = ListQuery(since: 42, limit: 1000, sort: ["last_modified"])
        let operation = KintoRequest.list(in: books, query: query)
        #expect(operation.method == .get)
        #expect(operation.path == "/buckets/default/collections/books/records?_since=42&_limit=1000&_sort=last_modified")
        #expect(operation.precondition == nil)
        #expect(KintoRequest.list(in: books, query: ListQuery()).path == "/buckets/default/collections/books/records")
        // A sort field is percent-encoded like any query value.
        #expect(ListQuery(sort: ["-title", "a b"]).path(in: books).hasSuffix("?_sort=-title,a%20b"))
        // An ETag becomes the sub-request's If-None-Match.
        let conditional = KintoRequest.list(in: books, query: ListQuery(ifNoneMatch: ETag(timestamp: 7)))
        #expect(conditional.precondition == .ifNoneMatch(ETag(timestamp: 7)))
        #expect(KintoRequest.listCollections(inBucket: "default").path == "/buckets/default/collections")
    }

    @Test func aSubResponseWithMoreToComeContinuesByCursor() throws {
        let result = BatchResult(
            status: 200, path: "/v1/buckets/default/collections/books/records",
            headers: HTTPHeaders([("ETag", "\"20\""), ("Next-Page", "http://127.0.0.1/v1/batch?_token=x"), ("Backoff", "30")]),
            body: Data(json: #"{"data":[{"id":"b1","last_modified":10},{"id":"b2","last_modified":20}]}"#), method: .get)
        let page = try #require(try result.page().page)
        #expect(page.records.map(\.id) == ["b1", "b2"])
        #expect(page.next == .byCursor)
        #expect(page.next.url == nil)
        #expect(page.etag == ETag(timestamp: 20))
        #expect(page.backoff == 30)
    }

    @Test func aLastPageIsDoneAndA304IsNotModified() throws {
        let last = BatchResult(status: 200, path: "/v1/x", headers: HTTPHeaders([("ETag", "\"5\"")]), body: Data(json: #"{"data":[]}"#), method: .get)
        #expect(try last.page() == .page(RecordPage(records: [], next: .done, etag: ETag(timestamp: 5))))
        let unchanged = BatchResult(status: 304, path: "/v1/x", headers: HTTPHeaders([("ETag", "\"5\"")]), body: Data(json: "null"), method: .get)
        #expect(try unchanged.page() == .notModified(etag: ETag(timestamp: 5), backoff: nil))
    }

    @Test func aRefusedOrMalformedSubResponseThrows() {
        let forbidden = BatchResult(
            status: 403, path: "/v1/buckets/shop/collections/products/records",
            body: Data(json: #"{"code":403,"errno":121,"error":"Forbidden","message":"no"}"#), method: .get)
        #expect(throws: APIError.self) { try forbidden.page() }
        let garbled = BatchResult(status: 200, path: "/v1/buckets/default/collections/books/records", body: Data(json: #"{"data":{}}"#), method: .get)
        let error = #expect(throws: APIError.self) { try garbled.page() }
        guard case .decoding(let failure)? = error else { Issue.record("expected a decoding error, got \(String(describing: error))"); return }
        #expect(failure.url?.hasSuffix("/collections/books/records") == true)
    }

    @Test func aCollectionsListingReadsAsTimestamps() {
        let listing = BatchResult(
            status: 200, path: "/v1/buckets/default/collections",
            body: Data(json: #"{"data":[{"id":"books","last_modified":3},{"id":"notes","last_modified":9}]}"#), method: .get)
        #expect(listing.collectionTimestamps() == ["books": 3, "notes": 9])
        let failed = BatchResult(status: 500, path: "/v1/buckets/default/collections", body: Data(json: "null"), method: .get)
        #expect(failed.collectionTimestamps() == nil)
    }
}
