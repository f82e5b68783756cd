import Foundation
import Services
import Testing
import TestSupport

@Suite("Response headers")
struct HeaderParsingTests {
    @Test func headerLookupIgnoresCase() {
        var headers: HTTPHeaders = ["ETag": "\"1\"", "Content-Type": "application/json"]
        #expect(headers["etag"] == "\"1\"")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        headers["content-type"] = "text/plain"
        #expect(headers.values(for: "Content-Type") == ["text/plain"])
        headers.add("Set-Cookie", "a")
        headers.add("set-cookie", "b")
        #expect(headers.values(for: "SET-COOKIE") == ["a", "b"])
    }

    @Test func backoffIsWholeSeconds() {
        #expect(HeaderValues.backoff("10") == 10)
        #expect(HeaderValues.backoff(" 0 ") == 0)
        #expect(HeaderValues.backoff("-3") == nil)
        #expect(HeaderValues.backoff("soon") == nil)
        #expect(HeaderValues.backoff(nil) == nil)
    }

    @Test func retryAfterIsSecondsOrAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_445_412_400)  // Wed, 21 Oct 2015 07:26:40 GMT
        #expect(HeaderValues.retryAfter("3", now: now) == 3)
        #expect(HeaderValues.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == 80)  // 07:26:40 + 80 s
        #expect(HeaderValues.retryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == 0)  // in the past
        #expect(HeaderValues.retryAfter("tomorrow", now: now) == nil)
        #expect(HeaderValues.retryAfter("-1", now: now) == nil)
    }

    @Test func etagsAreQuotedOnTheWire() {
        #expect(ETag(headerValue: #""1796039015162""#) == ETag(value: "1796039015162"))
        #expect(ETag(headerValue: #""1796039015162""#)?.timestamp == 1796039015162)
        #expect(ETag(timestamp: 42).headerValue == #""42""#)
        #expect(ETag(headerValue: #"W/"abc""#) == ETag(value: "abc", isWeak: true))
        #expect(ETag(headerValue: #"W/"abc""#)?.headerValue == #"W/"abc""#)
        #expect(ETag(headerValue: "123")?.value == "123")  // a lenient server's bare tag
        #expect(ETag(headerValue: #""unbalanced"#) == nil)
        #expect(ETag(headerValue: #""""#) == nil)
        #expect(ETag(headerValue: #""abc"#) == nil)
    }

    @Test func recordedListHeadersGiveETagAndNextPage() throws {
        let head = try RecordedResponses.head("books-page-1")
        let response = Response(value: Data(), status: head.status, headers: head.headers, url: "http://127.0.0.1/v1/x")
        #expect(response.etag?.timestamp != nil)
        let next = try #require(response.nextPage)
        #expect(next.hasPrefix("http://127.0.0.1:"))
        #expect(next.contains("_token="))
        #expect(next.contains("_limit=2"))

        let last = try RecordedResponses.head("books-page-3")
        #expect(Response(value: Data(), status: last.status, headers: last.headers, url: "").nextPage == nil)
    }

    @Test func backoffAndRetryAfterSurfaceOnResponses() {
        let response = Response(value: Data(), status: 200, headers: ["Backoff": "30", "Retry-After": "5"], url: "")
        #expect(response.backoff == 30)
        #expect(response.retryAfter == 5)
        #expect(Response(value: Data(), status: 200, headers: [:], url: "").backoff == nil)
    }
}

/// Waits from the network saturate and clamp: no value traps, none lasts over a day.
@Suite("Header waits are bounded")
struct BoundedWaitTests {
    static let now = Date(timeIntervalSince1970: 1_445_412_400)

    @Test(arguments: [
        ("9223372036854775807", HeaderValues.maximumWait),
        ("99999999999999999999999999999999999999", HeaderValues.maximumWait),
        ("86401", HeaderValues.maximumWait),
        ("86400", 86_400),
        ("3", 3),
        ("0", 0),
        ("-1", nil),
        ("1e9", nil),
        ("١٢", nil),
        ("", nil),
    ] as [(String, TimeInterval?)])
    func backoffSaturates(_ text: String, _ expected: TimeInterval?) {
        #expect(HeaderValues.backoff(text) == expected)
        #expect(HeaderValues.retryAfter(text, now: Self.now) == (text.isEmpty ? nil : expected))
    }

    @Test(arguments: [
        ("Fri, 31 Dec 9999 23:59:59 GMT", HeaderValues.maximumWait),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 80),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
    ] as [(String, TimeInterval)])
    func retryAfterDatesClamp(_ text: String, _ expected: TimeInterval) {
        #expect(HeaderValues.retryAfter(text, now: Self.now) == expected)
    }

    @Test func wholeSecondsNeverTrap() {
        #expect(HeaderValues.wholeSeconds(.infinity) == 86_400)
        #expect(HeaderValues.wholeSeconds(.nan) == 0)
        #expect(HeaderValues.wholeSeconds(9.3e18) == 86_400)
        #expect(HeaderValues.wholeSeconds(-5) == 0)
    }
}
