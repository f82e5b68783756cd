import Domain
import Testing

@Suite("Routes and deep links")
struct RouteTests {
    @Test func parsesEachKind() throws {
        #expect(try Route(url: "shelf://book/b-42") == .book("b-42"))
        #expect(try Route(url: "shelf://note/n_1") == .note("n_1"))
        #expect(try Route(url: "shelf://author/Ursula%20K.%20Le%20Guin") == .author("Ursula K. Le Guin"))
        #expect(try Route(url: "SHELF://Book/b1") == .book("b1"))
    }

    @Test(arguments: [
        Route.book("b-1"), .note("note_9"), .author("Ursula K. Le Guin"),
        .author("Gabriel García Márquez"), .author("AC/DC & friends?#%"), .author("日本語の著者"),
    ])
    func formattingThenParsingRoundTrips(_ route: Route) throws {
        #expect(try Route(url: route.url) == route)
    }

    @Test func formatsWithPercentEncoding() {
        #expect(Route.author("Le Guin").url == "shelf://author/Le%20Guin")
        #expect(Route.author("a/b").url == "shelf://author/a%2Fb")
        #expect(Route.book("b1").url == "shelf://book/b1")
    }

    @Test(arguments: [
        ("", RouteError.empty),
        ("book/1", .notALink("book/1")),
        ("https://book/1", .unsupportedScheme("https")),
        ("shelf://", .missingKind),
        ("shelf://shelfie/1", .unknownKind("shelfie")),
        ("shelf://book", .missingValue(.book)),
        ("shelf://book/", .missingValue(.book)),
        ("shelf://author/%20", .missingValue(.author)),
        ("shelf://book/1/2", .extraPathComponents("shelf://book/1/2")),
        ("shelf://book/1?x=2", .unexpectedQueryOrFragment("shelf://book/1?x=2")),
        ("shelf://note/1#top", .unexpectedQueryOrFragment("shelf://note/1#top")),
        ("shelf://author/%ZZ", .invalidPercentEncoding("%ZZ")),
        ("shelf://author/%C3", .invalidPercentEncoding("%C3")),
        ("shelf://author/abc%4", .invalidPercentEncoding("abc%4")),
        ("shelf://book/has%20space", .invalidIdentifier(.book, "has space")),
    ])
    func malformedLinksAreRejectedWithTheReason(_ link: String, _ expected: RouteError) {
        #expect(throws: expected) { try Route(url: link) }
    }

    @Test func errorMessagesSayWhatIsWrong() {
        #expect(RouteError.unknownKind("x").description == "unknown link kind 'x'; expected one of: book, author, note")
        #expect(RouteError.missingValue(.author).description.contains("no name"))
    }
}
