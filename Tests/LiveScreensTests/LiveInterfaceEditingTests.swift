import Domain
import LiveScreens
import Presentation
import Terminal
import Testing
import TestSupport

// MARK: - Writes typed in the interface: a book's title and author, notes

@MainActor
@Suite("Live interface: editing")
struct LiveInterfaceEditingTests {
    @Test func eEditsTheSelectedBooksTitleThenItsAuthorThroughTheViewModel() async throws {
        let shelf = try LiveShelf()
        let interface = await shelf.interface(columns: 80)
        await interface.press(.character("e"))
        #expect(interface.frame().line(11).contains("Title: Dune"))

        await interface.type(" Messiah")
        await interface.press(.enter)
        #expect(interface.frame().line(11).contains("Author: Frank Herbert"))
        await interface.press(.control("u"))
        await interface.type("F. Herbert")
        await interface.press(.enter)

        let edited = try #require(await shelf.books.shelf.first { $0.id == "book-001" })
        #expect(edited.title == "Dune Messiah" && edited.author == "F. Herbert")
        #expect(interface.notice == "Saved; the next sync sends it.")
    }

    @Test func anEmptyTitleIsRefusedAndThePromptStaysOpen() async throws {
        let shelf = try LiveShelf()
        let interface = await shelf.interface(columns: 80)
        await interface.press(.character("e"), .control("u"), .enter)

        #expect(interface.notice != nil)
        #expect(interface.frame().line(11).contains("Title:"))
        await interface.press(.escape)
        #expect(interface.notice == "Nothing changed.")
        #expect(await shelf.books.writes.isEmpty)
    }

    @Test func nWritesANoteAboutTheBookThroughTheViewModel() async throws {
        let notes = FakeNoteService(notes: try SampleShelf.notes())
        let shelf = try LiveShelf(notes: notes)
        let interface = await shelf.interface(columns: 80)
        await interface.press(.enter, .character("n"))
        await interface.type("Chapter 3")
        await interface.press(.enter)
        await interface.type("The desert scenes")
        await interface.press(.enter)

        let added = try #require(await notes.stored.first { $0.title == "Chapter 3" })
        #expect(added.bookID == "book-001" && added.body == "The desert scenes")
        #expect(interface.notice == "Note added; the next sync sends it.")
    }

    @Test func aShortBodyIsEditedInline() async throws {
        let notes = FakeNoteService(notes: try SampleShelf.notes())
        let editor = EditorProbe()
        let interface = await (try LiveShelf(notes: notes, editText: editor.edit)).interface(columns: 80)
        // note-002 is the second of every note (N), a one-line body.
        await interface.press(.character("N"), .down, .enter, .character("e"), .enter)
        #expect(interface.frame().line(11).contains("Body: Page 119"))
        await interface.press(.end)
        await interface.type(" again")
        await interface.press(.enter)
        #expect(await notes.stored.first { $0.id == "note-002" }?.body == "Page 119: check the original wording again")
        #expect(editor.handed.isEmpty)
    }

    @Test func eOpensTheNotesBodyInTheEditorAndSavesWhatComesBack() async throws {
        let notes = FakeNoteService(notes: try SampleShelf.notes())
        let editor = EditorProbe()
        let interface = await (try LiveShelf(notes: notes, editText: editor.edit)).interface(columns: 80)
        await interface.press(.character("N"), .down, .enter, .character("E"))

        #expect(editor.handed == ["Page 119: check the original wording"])
        #expect(await notes.stored.first { $0.id == "note-002" }?.body == "Page 119: check the original wording\nand a second line")
        #expect(interface.notice == "Saved; the next sync sends it.")
    }

    @Test func aSaveThatFailsKeepsTheEditorsFileAndNamesIt() async throws {
        let notes = FakeNoteService(notes: try SampleShelf.notes())
        let shelf = try LiveShelf(notes: notes, editText: { _ in
            EditedBody(text: "a new body", failure: nil) { saved in saved ? nil : "/tmp/shelf-note-1.txt" }
        })
        let interface = await shelf.interface(columns: 80)
        await interface.press(.character("N"), .down, .enter)
        await notes.enqueueWrite(.failure(FakeError("disk full")))
        await interface.press(.character("E"))

        #expect(interface.notice?.contains("kept in /tmp/shelf-note-1.txt") == true)
        #expect(await notes.stored.first { $0.id == "note-002" }?.body == "Page 119: check the original wording")
    }
}

// MARK: - EditorProbe

/// An editor that adds a line to what it is given, and remembers what it was given.
@MainActor
final class EditorProbe {
    private(set) var handed: [String] = []

    func edit(_ text: String) async -> EditedBody {
        handed.append(text)
        return EditedBody(text: text + "\nand a second line", failure: nil) { _ in nil }
    }
}
