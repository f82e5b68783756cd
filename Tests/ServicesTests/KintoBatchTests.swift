import Foundation
import Services
import Synchronization
import Testing
import TestSupport

@Suite("Batch")
struct KintoBatchTests {
    /// A fake `/batch` endpoint: answers each sub-request with 201 and a record named
    /// after the sub-request's path, so results can be checked against operations.
    static func batchEndpoint() -> FakeHTTPTransport {
        FakeHTTPTransport { request in
            let body = try #require(request.body)
            let parsed = try JSONDecoder().decode(BatchBody.self, from: body)
            let responses = parsed.requests.enumerated().map { index, sub in
                let id = sub.path.split(separator: "/").last.map(String.init) ?? "?"
                return #"{"status":201,"path":"/v1\#(sub.path)","headers":{"ETag":"\"\#(index)\""},"body":{"data":{"id":"\#(id)","last_modified":\#(index)}}}"#
            }
            return HTTPResponse(status: 200, body: Data(json: #"{"responses":[\#(responses.joined(separator: ","))]}"#), url: request.url)
        }
    }

    struct BatchBody: Decodable {
        struct Sub: Decodable { let method: String; let path: String; let headers: [String: String]?; let body: [String: [String: String]]? }
        let requests: [Sub]
    }

    func operations(_ count: Int) throws -> [KintoRequest] {
        let books = KintoCollectionPath(.books)
        return try (0..<count).map { index in
            try KintoRequest.create(in: books, id: "book-\(index)", data: Data(json: #"{"title":"T\#(index)"}"#))
        }
    }

    func client(_ transport: FakeHTTPTransport) -> APIClient {
        APIClient(configuration: .init(baseURL: "http://127.0.0.1:8888/v1"), transport: transport)
    }

    @Test(arguments: [(1, [1]), (25, [25]), (26, [25, 1]), (51, [25, 25, 1])])
    func splitsIntoCallsOfAtMost25(count: Int, callSizes: [Int]) async throws {
        let transport = Self.batchEndpoint()
        let results = try await KintoBatchService(client: client(transport)).send(try operations(count))

        let calls = try transport.requests.map { try JSONDecoder().decode(BatchBody.self, from: try #require($0.body)) }
        #expect(calls.map(\.requests.count) == callSizes)
        #expect(transport.requests.allSatisfy { $0.method == .post && $0.url.hasSuffix("/v1/batch") })
        // Results in the operations' order, across calls.
        #expect(results.map { try? $0.record().id } == (0..<count).map { "book-\($0)" })
        #expect(calls.flatMap(\.requests).map(\.path) == (0..<count).map { "/buckets/default/collections/books/records/book-\($0)" })
    }

    @Test func sendsNothingForNoOperations() async throws {
        let transport = Self.batchEndpoint()
        #expect(try await KintoBatchService(client: client(transport)).send([]).isEmpty)
        #expect(transport.requests.isEmpty)
    }

    @Test func subRequestsCarryPreconditionsAndRawBodies() async throws {
        let transport = Self.batchEndpoint()
        let books = KintoCollectionPath(.books)
        let ops = [
            try KintoRequest.create(in: books, id: "a", data: Data(json: #"{"title":"é \"q\""}"#)),
            try KintoRequest.update(in: books, id: "b", data: Data(json: #"{"title":"B"}"#), ifMatch: 17),
            try KintoRequest.delete(in: books, id: "c", ifMatch: 18),
        ]
        _ = try await KintoBatchService(client: client(transport)).send(ops)
        let sent = try JSONDecoder().decode(BatchBody.self, from: try #require(transport.requests.first?.body)).requests
        #expect(sent.map(\.method) == ["PUT", "PUT", "DELETE"])
        #expect(sent.map { $0.headers ?? [:] } == [["If-None-Match": "*"], ["If-Match": #""17""#], ["If-Match": #""18""#]])
        #expect(sent[0].body == ["data": ["title": #"é "q""#]])
        #expect(sent[2].body == nil)
    }

    @Test func aRecordedBatchResponseSortsSuccessesFromFailures() async throws {
        let tasks = KintoCollectionPath(.tasks)
        let catalog = KintoCollectionPath(.products)
        let ops = [
            try KintoRequest.create(in: tasks, id: "task-003", data: Data(json: "{}")),
            try KintoRequest.update(in: tasks, id: "task-001", data: Data(json: "{}"), ifMatch: nil),
            try KintoRequest.update(in: tasks, id: "task-002", data: Data(json: "{}"), ifMatch: 1),
            try KintoRequest.delete(in: tasks, id: "task-404", ifMatch: nil),
            try KintoRequest.update(in: catalog, id: "prod-001", data: Data(json: "{}"), ifMatch: nil),
        ]
        let transport = FakeHTTPTransport(status: 200, body: try RecordedResponses.body("batch-response"))
        let results = try await KintoBatchService(client: client(transport)).send(ops)
        #expect(results.map(\.status) == [201, 200, 412, 404, 403])
        #expect(try results[0].record().id == "task-003")
        #expect(results[0].headers["etag"] != nil)
        #expect(try results[1].record().id == "task-001")

        let conflict = try #require(results[2].error)
        #expect(conflict.existingRecord?.id == "task-002")
        if case .notFound = results[3].error {} else { Issue.record("expected notFound, got \(String(describing: results[3].error))") }
        if case .forbidden = results[4].error {} else { Issue.record("expected forbidden, got \(String(describing: results[4].error))") }
        #expect(throws: APIError.self) { try results[4].record() }
    }

    @Test func aResponseCountMismatchIsADecodingError() async throws {
        let transport = FakeHTTPTransport(status: 200, body: Data(json: #"{"responses":[]}"#))
        let error = await #expect(throws: APIError.self) { try await KintoBatchService(client: client(transport)).send(try operations(2)) }
        #expect(error?.decodingFailure?.message == "expected 2 responses, got 0")
    }

    @Test func aBodyThatIsNotAnObjectIsRefusedBeforeSending() throws {
        #expect(throws: APIError.self) { try KintoRequest.create(in: KintoCollectionPath(.books), id: "a", data: Data(json: "[1]")) }
        #expect(throws: APIError.self) { try KintoRequest.create(in: KintoCollectionPath(.books), id: "a/b", data: Data(json: "{}")) }
    }
}
