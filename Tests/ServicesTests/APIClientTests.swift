import Foundation
import Services
import Testing
import TestSupport

@Suite("API client")
struct APIClientTests {
    static let base = "http://127.0.0.1:8888/v1"

    func client(_ transport: FakeHTTPTransport, credentials: APIClient.Credentials? = .init(user: "ana", password: "s3cret-pw")) -> APIClient {
        APIClient(configuration: .init(baseURL: Self.base + "/", credentials: credentials, timeouts: Timeouts(connect: .seconds(2), request: .seconds(5))), transport: transport)
    }

    // MARK: Requests

    @Test func buildsURLAuthAndPreconditionHeaders() async throws {
        let transport = FakeHTTPTransport(status: 200, body: Data(json: "{}"))
        _ = try await client(transport).send(
            .put, "/buckets/default/collections/books/records/b1",
            query: [URLQueryItem(name: "_sort", value: "-last_modified,id"), URLQueryItem(name: "q", value: "a b&c")],
            body: Data(json: #"{"data":{}}"#), precondition: .ifMatch(lastModified: 1796039015138))
        let request = try #require(transport.requests.first)
        #expect(request.method == .put)
        #expect(request.url == Self.base + "/buckets/default/collections/books/records/b1?_sort=-last_modified,id&q=a%20b%26c")
        #expect(request.headers["If-Match"] == #""1796039015138""#)
        #expect(request.headers["Authorization"] == "Basic " + Data("ana:s3cret-pw".utf8).base64EncodedString())
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.timeouts == Timeouts(connect: .seconds(2), request: .seconds(5)))
    }

    @Test func sendsNoAuthorizationWithoutCredentials() async throws {
        let transport = FakeHTTPTransport(status: 200, body: Data(json: "{}"))
        _ = try await client(transport, credentials: nil).send(.get, "/")
        #expect(transport.requests.first?.headers["Authorization"] == nil)
    }

    @Test func createSendsIfNoneMatchStar() async throws {
        let transport = FakeHTTPTransport(status: 201, body: try RecordedResponses.body("books-record"))
        let service = KintoCollectionService(client: client(transport), collection: .books)
        let created = try await service.create(id: "book-002", data: Data(json: #"{"title":"x"}"#))
        #expect(created.id == "book-002")
        #expect(transport.requests.first?.headers["If-None-Match"] == "*")
        #expect(transport.requests.first.flatMap(\.body).map { String(decoding: $0, as: UTF8.self) } == #"{"data":{"title":"x"}}"#)
    }

    @Test func refusesPathsThatEscapeTheAPIRoot() async throws {
        let transport = FakeHTTPTransport(status: 200)
        for path in ["/buckets/../../etc", "buckets", "/a b", "/a?b=1", "/a#frag"] {
            await #expect(throws: APIError.self) { try await client(transport).send(.get, path) }
        }
        let service = KintoCollectionService(client: client(transport), collection: .books)
        await #expect(throws: APIError.self) { try await service.record(id: "../x") }
        #expect(transport.requests.isEmpty)
    }

    @Test func refusesANextPageOnAnotherHost() async throws {
        let transport = FakeHTTPTransport(status: 200, body: Data(json: #"{"data":[]}"#))
        let service = KintoCollectionService(client: client(transport), collection: .books)
        let error = await #expect(throws: APIError.self) { try await service.page(at: "http://evil.example/v1/buckets?_token=x") }
        #expect("\(error!)".contains("not under the server's base URL"))
        #expect(transport.requests.isEmpty)
        _ = try await service.page(at: Self.base + "/buckets/default/collections/books/records?_token=x")
        #expect(transport.requests.count == 1)
    }

    // MARK: Statuses → errors

    @Test func mapsRecordedErrorsToTheTaxonomy() async throws {
        let cases: [(String, (APIError) -> Bool)] = [
            ("unauthorized-401", { if case .unauthorized = $0 { true } else { false } }),
            ("forbidden-403", { if case .forbidden = $0 { true } else { false } }),
            ("not-found-404", { if case .notFound = $0 { true } else { false } }),
            ("batch-too-many-400", { if case .httpStatus(let f) = $0 { f.status == 400 } else { false } }),
        ]
        for (name, matches) in cases {
            let recorded = try RecordedResponses.response(name)
            let transport = FakeHTTPTransport(status: recorded.status, headers: recorded.headers, body: recorded.body)
            let error = await #expect(throws: APIError.self) { try await client(transport).send(.get, "/x") }
            let apiError = try #require(error)
            #expect(matches(apiError), "\(name): \(apiError)")
            #expect(apiError.httpFailure?.serverError?.errno != nil, "\(name)")
        }
    }

    @Test func preconditionFailedCarriesTheExistingRecord() async throws {
        let recorded = try RecordedResponses.response("precondition-failed-412")
        let transport = FakeHTTPTransport(status: 412, headers: recorded.headers, body: recorded.body)
        let service = KintoCollectionService(client: client(transport), collection: .books)
        let error = await #expect(throws: APIError.self) {
            try await service.update(id: "book-002", data: Data(json: "{}"), ifMatch: 1)
        }
        let existing = try #require(error?.existingRecord)
        #expect(existing.id == "book-002")
        #expect(try existing.fields()["title"]?.stringValue == "Cien años de soledad")
        #expect(error?.httpFailure?.serverError?.errno == 114)
    }

    @Test func preconditionFailedOnADeletedRecordHasNoExisting() async throws {
        let recorded = try RecordedResponses.response("precondition-failed-deleted-412")
        let transport = FakeHTTPTransport(status: 412, headers: recorded.headers, body: recorded.body)
        let error = await #expect(throws: APIError.self) { try await client(transport).send(.put, "/x", body: Data(json: "{}")) }
        guard case .preconditionFailed(_, let existing) = error else {
            Issue.record("expected preconditionFailed, got \(String(describing: error))")
            return
        }
        #expect(existing == nil)
        #expect("\(error!)".contains("no longer has the record"))
    }

    @Test func serviceUnavailableCarriesItsRetryAfterAndBackoff() async throws {
        let body = Data(json: #"{"code":503,"errno":201,"error":"Service Unavailable","message":"Service temporary unavailable due to overloading or maintenance, please retry later."}"#)
        let transport = FakeHTTPTransport(status: 503, headers: ["Retry-After": "3", "Backoff": "60"], body: body)
        let error = await #expect(throws: APIError.self) { try await client(transport).send(.get, "/x") }
        #expect(error?.status == 503)
        #expect(error?.httpFailure?.retryAfter == 3)
        #expect(error?.httpFailure?.backoff == 60)
        #expect("\(error!)".contains("retry after 3 s"))
    }

    @Test func notModifiedIsAResultOnlyWhenAsked() async throws {
        let recorded = try RecordedResponses.response("books-not-modified-304")
        let transport = FakeHTTPTransport(status: 304, headers: recorded.headers)
        let service = KintoCollectionService(client: client(transport), collection: .books)
        let result = try await service.firstPage(ListQuery(ifNoneMatch: ETag(timestamp: 1)))
        guard case .notModified(let etag, _) = result else {
            Issue.record("expected notModified, got \(result)")
            return
        }
        #expect(etag == recorded.headers["ETag"].flatMap(ETag.init(headerValue:)))
        #expect(transport.requests.first?.headers["If-None-Match"] == #""1""#)
        // Without If-None-Match a 304 is not what was asked for.
        await #expect(throws: APIError.self) { try await service.firstPage() }
    }

    // MARK: Decoding

    @Test func getDecodesAndNamesTheFailingPath() async throws {
        struct Envelope: Decodable, Sendable { struct Item: Decodable, Sendable { let id: String; let quantity: Int }; let data: [Item] }
        let good = FakeHTTPTransport(status: 200, body: try RecordedResponses.body("cart-page"))
        let response = try await client(good).get("/cart", as: Envelope.self)
        #expect(response.value.data.map(\.quantity) == [1, 3])
        #expect(response.status == 200)

        let bad = FakeHTTPTransport(status: 200, body: Data(json: #"{"data":[{"id":"a","quantity":1},{"id":"b","quantity":"two"}]}"#))
        let error = await #expect(throws: APIError.self) { try await client(bad).get("/cart", as: Envelope.self) }
        #expect(error?.decodingFailure?.path == "data[1].quantity")
        #expect(error?.decodingFailure?.url == Self.base + "/cart")
    }

    @Test func pagesComeWithNextPageETagAndBackoff() async throws {
        let recorded = try RecordedResponses.response("books-page-1")
        var headers = recorded.headers
        headers["Backoff"] = "10"
        let transport = FakeHTTPTransport(status: 200, headers: headers, body: recorded.body)
        let nextPages = CallLog<String>()
        let service = KintoCollectionService(client: client(transport), collection: .books)
        let page = try #require(try await service.firstPage(ListQuery(since: 5, limit: 2, sort: ["last_modified"]), onNextPage: { nextPages.record($0) }).page)
        #expect(page.records.map(\.id) == ["book-001", "book-002"])
        #expect(page.next == recorded.headers["Next-Page"].map(PageContinuation.url))
        #expect(nextPages.values == [recorded.headers["Next-Page"]!])
        #expect(page.backoff == 10)
        #expect(page.etag != nil)
        #expect(transport.requests.first?.url == Self.base + "/buckets/default/collections/books/records?_since=5&_limit=2&_sort=last_modified")
    }
}
