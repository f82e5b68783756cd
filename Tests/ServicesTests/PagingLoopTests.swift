import Domain
import Foundation
import Services
import Synchronization
import Testing
import TestSupport

/// Following every page of a list ends, whatever the server's `Next-Page` says.
@Suite("Paging loops end")
struct PagingLoopTests {
    private static let base = "http://127.0.0.1:1/v1"

    enum Links: String, CaseIterable, Sendable {
        case toItself, cycleOfTwo, newForEver

        func token(_ index: Int) -> String {
            switch self {
            case .toItself: "same"
            case .cycleOfTwo: index % 2 == 0 ? "a" : "b"
            case .newForEver: "t\(index)"
            }
        }

        var maximumPages: Int { self == .newForEver ? 5 : 1_000 }
        var expected: String { self == .newForEver ? "pulled 5 pages" : "already fetched" }
    }

    @Test(arguments: Links.allCases)
    func allRecordsStopsOnALoop(_ links: Links) async throws {
        let (name, token, maximumPages, expected) = (links.rawValue, links.token, links.maximumPages, links.expected)
        let count = Mutex(0)
        let transport = FakeHTTPTransport { request in
            let index = count.withLock { $0 += 1; return $0 }
            let next = "\(Self.base)/buckets/default/collections/books/records?_token=\(token(index))"
            let body = #"{"data":[{"id":"b\#(index)","last_modified":\#(index)}]}"#
            return HTTPResponse(status: 200, headers: ["Next-Page": next], body: Data(body.utf8), url: request.url)
        }
        let service = KintoCollectionService(client: APIClient(configuration: .init(baseURL: Self.base), transport: transport), collection: .books)
        do {
            _ = try await service.allRecords(maximumPages: maximumPages)
            Issue.record("\(name): the pages never ended, yet allRecords returned")
        } catch let error as PagingError {
            #expect(error.description.contains(expected), "\(error)")
        }
        #expect(transport.requests.count <= maximumPages + 1)
    }
}
