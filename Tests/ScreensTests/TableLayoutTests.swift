import Domain
import Presentation
import Screens
import Testing
import TestSupport

/// The exact lines of a table with cells of every kind: wide characters, escaped
/// controls, yes/no, a width that makes the widest column give way, and colour.
@MainActor
@Suite("Rendering: table layout, byte for byte")
struct TableLayoutTests {
    private func screen() async throws -> LibraryScreen {
        let books = [
            try Book(id: "b-1", title: "Dune", author: "Frank Herbert", isFinished: true),
            try Book(id: "b-22", title: "森の生活", author: "Thoreau"),
            try Book(id: "b-333", title: "Café\tcrème and a rather long title", author: "Zoë"),
        ]
        let model = BookSearchViewModel(service: FakeBookService(books: books))
        await model.search("", unfinishedOnly: false)
        return LibraryScreen(model)
    }

    @Test func plain() async throws {
        #expect(try await screen().renderText(.plain) == """
            ID     TITLE                                AUTHOR         FINISHED
            b-1    Dune                                 Frank Herbert  yes
            b-22   森の生活                             Thoreau        no
            b-333  Café\\tcrème and a rather long title  Zoë            no
            3 books

            """)
    }

    @Test func narrow() async throws {
        #expect(try await screen().renderText(RenderOptions(width: 30)) == """
            ID     TITLE   AUTHOR  FINISH…
            b-1    Dune    Frank…  yes
            b-22   森の…   Thore…  no
            b-333  Café\\…  Zoë     no
            3 books

            """)
    }

    @Test func coloured() async throws {
        let expected = "\u{1B}[1mID   \u{1B}[0m  \u{1B}[1mTITLE                              \u{1B}[0m  \u{1B}[1mAUTHOR       \u{1B}[0m  "
            + "\u{1B}[1mFINISHED\u{1B}[0m\nb-1    Dune                                 Frank Herbert  \u{1B}[32myes\u{1B}[0m\n"
            + "b-22   森の生活                             Thoreau        no\n"
            + "b-333  Café\\tcrème and a rather long title  Zoë            no\n\u{1B}[2m3 books\u{1B}[0m\n"
        #expect(try await screen().renderText(RenderOptions(color: true)) == expected)
    }
}
