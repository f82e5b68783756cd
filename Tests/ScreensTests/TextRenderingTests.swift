import Domain
import Presentation
import Screens
import Testing
import TestSupport

@MainActor
@Suite("Rendering: text rules")
struct TextRenderingTests {
    func fullLibrary() async throws -> BookSearchViewModel {
        try await library(SampleShelf.books())
    }

    /// The library as `shelf books` fills it: a search through the store's indexes.
    func library(_ books: [Book], service: FakeBookService? = nil) async throws -> BookSearchViewModel {
        let model = BookSearchViewModel(service: service ?? FakeBookService(books: books))
        await model.search("", unfinishedOnly: false)
        return model
    }

    @Test func colourOnStylesTheSameText() async throws {
        let screen = LibraryScreen(try await fullLibrary())

        let coloured = screen.renderText(RenderOptions(color: true))

        #expect(coloured.contains("\u{1B}[1mID"))
        #expect(coloured.contains("\u{1B}[32myes"))
        #expect(strippingEscapes(coloured) == screen.renderText(.plain))
    }

    @Test func colourOffHasNoEscapeCodesEvenForHostileData() async throws {
        let hostile = try Book(id: "evil", title: "Title\u{1B}[31m red\u{07}", author: "Tab\there\nnewline")
        let model = try await library([hostile])

        let text = LibraryScreen(model).renderText(.plain)

        #expect(!text.contains("\u{1B}"))
        #expect(!text.contains("\u{07}"))
        #expect(text.split(separator: "\n").count == 3, "a header, one row and the summary")
    }

    @Test func anErrorIsRedOnlyWithColour() async throws {
        let service = FakeBookService()
        await service.enqueueSearch(.failure(FakeError("offline")))
        let screen = LibraryScreen(try await library([], service: service))

        #expect(screen.renderText(RenderOptions(color: true)) == "\u{1B}[31mError: Could not search the books: offline\u{1B}[0m\n")
        #expect(screen.renderText(.plain) == "Error: Could not search the books: offline\n")
    }

    @Test func wideCharactersKeepColumnsAligned() async throws {
        let books = [
            try Book(id: "b-1", title: "ノルウェイの森", author: "村上春樹"),
            try Book(id: "b-2", title: "Dune", author: "Frank Herbert"),
        ]
        let model = try await library(books)

        let lines = LibraryScreen(model).renderText(.plain).split(separator: "\n").map(String.init)

        // "ノルウェイの森" is 7 characters but 14 columns wide, like the padded "Dune".
        #expect(lines[1] == "b-1  ノルウェイの森  村上春樹       no")
        #expect(lines[2] == "b-2  Dune            Frank Herbert  no")
    }

    @Test func noLineEndsInSpaces() async throws {
        let text = LibraryScreen(try await fullLibrary()).renderText(.plain)
        #expect(text.split(separator: "\n").allSatisfy { $0.last != " " })
    }

    @Test func aRefreshInFlightShowsTheBooksAndSaysSo() async throws {
        let service = FakeBookService(books: try SampleShelf.books())
        let model = try await library([], service: service)
        let gate = SuspensionGate<BookSearchPage>()
        await service.enqueueSearch(.gate(gate))
        let refresh = Task { await model.search("", unfinishedOnly: false) }
        await gate.arrival()

        let text = LibraryScreen(model).renderText(.plain)

        #expect(text.hasSuffix("4 books\nRefreshing books...\n"))
        await gate.open(with: BookSearchPage(books: [], totalMatches: 0, totalBooks: 0, offset: 0))
        await refresh.value
    }

    @Test func aNoteBodyShowsItsFirstLineCutToFortyColumns() async throws {
        let notes = [
            try Note(id: "long", title: "Long", body: String(repeating: "abcde ", count: 10)),
            try Note(id: "short", title: "Short", body: "fits\n\n"),
            try Note(id: "exact", title: "Exact", body: String(repeating: "x", count: 40)),
        ]
        let model = NotesViewModel(service: FakeNoteService(notes: notes))
        await model.load()

        let lines = NotesScreen(model).renderText(.plain).split(separator: "\n").map(String.init)

        #expect(lines[1].hasSuffix("  " + String(repeating: "abcde ", count: 6) + "abc…"))
        #expect(lines[2].hasSuffix("  fits"))
        #expect(lines[3].hasSuffix("  " + String(repeating: "x", count: 40)))
        #expect(try NotesScreen(model).renderJSON().contains(#""body" : "abcde abcde"#))
    }

    @Test func jsonFormatMatchesRenderJSON() async throws {
        let screen = LibraryScreen(try await fullLibrary())
        #expect(try screen.render(.json) == (try screen.renderJSON()))
        #expect(try screen.render(.text) == screen.renderText(.plain))
    }

    private func strippingEscapes(_ text: String) -> String {
        var out = ""
        var inEscape = false
        for character in text {
            if character == "\u{1B}" { inEscape = true; continue }
            if inEscape { if character == "m" { inEscape = false }; continue }
            out.append(character)
        }
        return out
    }
}
