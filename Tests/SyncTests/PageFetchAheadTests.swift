import Domain
import Foundation
import Services
@testable import Sync
import TestSupport
import Testing

/// A pull's next page is asked for as soon as the previous page's headers name it, one
/// page ahead at most, and never twice.
@Suite("Pages fetched ahead")
struct PageFetchAheadTests {
    private static let base = "http://127.0.0.1:1/v1"

    private static func url(_ page: Int) -> String {
        base + "/buckets/default/collections/books/records?_limit=2&_sort=last_modified&_token=\(page)"
    }

    /// Pages 1…5, each naming the next; page 2's answer waits at `gate`.
    private static func transport(gate: SuspensionGate<Void>) -> FakeHTTPTransport {
        FakeHTTPTransport { request in
            let page = request.url.components(separatedBy: "_token=").last.flatMap { Int($0) } ?? 0
            if page == 2 { try await gate.pass() }
            let body = #"{"data":[{"id":"b\#(page)","title":"T","last_modified":\#(page)}]}"#
            var headers = [("Content-Type", "application/json")]
            if page < 5 { headers.append(("Next-Page", url(page + 1))) }
            return HTTPResponse(status: 200, headers: HTTPHeaders(headers), body: Data(body.utf8), url: request.url)
        }
    }

    private static func service(_ transport: FakeHTTPTransport) -> KintoCollectionService {
        let client = APIClient(configuration: .init(baseURL: base, credentials: .init(user: "u", password: "p")), transport: transport)
        return KintoCollectionService(client: client, collection: .books)
    }

    @Test func theNextPageIsAskedForByThePreviousPagesHeadersAndOnlyOnce() async throws {
        let gate = SuspensionGate<Void>()
        let transport = Self.transport(gate: gate)
        let ahead = PageFetchAhead(service: Self.service(transport))

        // WHEN the pull asks for page 1
        let first = try await ahead.page(at: Self.url(1)).value
        #expect(first.next == .url(Self.url(2)))

        // THEN page 2 was asked for by page 1's headers, before the pull asked for it
        await gate.arrival()
        #expect(transport.requests.map(\.url) == [Self.url(1), Self.url(2)])

        // WHEN page 2's answer arrives before the pull takes it (the pull is slower)
        await gate.open(with: ())
        let waiting = try #require(ahead.requestedAhead(Self.url(2)))
        _ = try await waiting.value

        // THEN page 3 was not asked for: one page ahead at most
        #expect(transport.requests.map(\.url) == [Self.url(1), Self.url(2)])

        // WHEN the pull takes page 2, it is the answer asked for ahead (no second request)
        let second = try await ahead.page(at: Self.url(2)).value
        #expect(second.records.map(\.id) == ["b2"])
        #expect(transport.requests.map(\.url) == [Self.url(1), Self.url(2)])

        // WHEN the pull asks for page 3 itself, its headers ask for page 4, and so on
        _ = try await ahead.page(at: Self.url(3)).value
        let fourth = try await ahead.page(at: Self.url(4)).value
        #expect(fourth.records.map(\.id) == ["b4"])
        let fifth = try await ahead.page(at: Self.url(5)).value
        #expect(fifth.next == .done)
        #expect(transport.requests.map(\.url) == (1...5).map(Self.url))
    }

    @Test func aNextPageOffTheListIsNeverAskedForAhead() async throws {
        // GIVEN a page whose Next-Page names another collection
        let elsewhere = Self.base + "/buckets/default/collections/notes/records?_token=2"
        let transport = FakeHTTPTransport { request in
            HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json"), ("Next-Page", elsewhere)]),
                         body: Data(#"{"data":[{"id":"b1","title":"T","last_modified":1}]}"#.utf8), url: request.url)
        }
        let ahead = PageFetchAhead(service: Self.service(transport))

        // WHEN the pull asks for the page
        let first = try await ahead.page(at: Self.url(1)).value

        // THEN its headers asked for nothing: the loop's guard will refuse the link
        #expect(first.next == .url(elsewhere))
        #expect(ahead.requestedAhead(elsewhere) == nil)
        #expect(transport.requests.map(\.url) == [Self.url(1)])
    }

    @Test func aStoppedPullAsksForNothingMore() async throws {
        let gate = SuspensionGate<Void>()
        let transport = Self.transport(gate: gate)
        let ahead = PageFetchAhead(service: Self.service(transport))
        _ = try await ahead.page(at: Self.url(1)).value
        await gate.arrival()

        // WHEN the pull stops while page 2 is on its way
        ahead.stop()
        await gate.open(with: ())

        // THEN page 2's headers ask for nothing more, and a page taken now is asked for anew
        _ = try? await ahead.page(at: Self.url(2)).value
        #expect(transport.requests.map(\.url) == [Self.url(1), Self.url(2), Self.url(2)])
    }
}
