import Foundation
import Testing

/// Ids as readers type them — unique prefixes, titles — and places that lead somewhere,
/// through the built binary on the local-only store.
@Suite("shelf: short ids, titles and places")
struct ShortIDAndPlaceTests {
    let sandbox: ShelfSandbox

    static let dispossessed = "3f2b1c9a-0d4e-4c1b-9a7e-5e1f2a3b4c5d"
    static let dune = "3f2b1c9f-77aa-4b0c-8d21-0a9b8c7d6e5f"
    static let twin = "3f2b1c9a-ffff-4000-8000-000000000000"

    /// A library whose ids share long prefixes, imported from a Shelf export so the ids
    /// are known.
    init() async throws {
        sandbox = try ShelfSandbox()
        let export = """
            {"format": "shelf-export", "version": 1, "exportedAt": "2026-12-01T09:30:00Z", "collections": {
              "books": [
                {"id": "\(Self.dispossessed)", "title": "The Dispossessed", "author_name": "Ursula K. Le Guin", "finished": false},
                {"id": "\(Self.twin)", "title": "The Left Hand of Darkness", "author_name": "Ursula K. Le Guin", "finished": true},
                {"id": "\(Self.dune)", "title": "Dune", "author_name": "Frank Herbert", "finished": false},
                {"id": "b-42", "title": "Dune Messiah", "author_name": "Frank Herbert", "finished": false},
                {"id": "c-1", "title": "L'Étranger", "author_name": "Albert Camus", "finished": false},
                {"id": "c-2", "title": "L'Étranger", "author_name": "Albert Camus", "finished": true}
              ],
              "notes": [
                {"id": "9c0ffee1-0000", "book_id": "\(Self.dispossessed)", "title": "Walls", "body": "On both sides."},
                {"id": "9c0ffee2-0000", "book_id": null, "title": "Loose thought", "body": "Later."}
              ]
            }}
            """
        let file = try sandbox.file("library.json", contents: export, mode: 0o600)
        let run = try await sandbox.run("import", file.path, "--format", "shelf")
        #expect(run.status == 0, "\(run)")
    }

    // MARK: Prefixes

    @Test func aUniquePrefixOfFourOrMoreNamesTheRecord() async throws {
        let show = try await sandbox.run("--json", "book", "show", "3f2b1c9f")
        #expect(show.status == 0, "\(show)")
        #expect((try show.json()["book"] as? [String: Any])?["id"] as? String == Self.dune)

        #expect(try await sandbox.run("book", "finish", "3f2b1c9a-0").stdout == "Marked book \(Self.dispossessed) finished (saved locally; no account to sync it with)\n")
        #expect(try await sandbox.run("note", "show", "9c0ffee2").status == 0)
        #expect(try await sandbox.run("--json", "note", "rm", "9c0ffee2").json()["id"] as? String == "9c0ffee2-0000")
    }

    @Test func anExactIDWinsAndAShortOneIsRefusedSayingSo() async throws {
        #expect(try await sandbox.run("book", "show", "b-42").status == 0)

        let short = try await sandbox.run("book", "show", "3f2")
        #expect(short.status == 64, "\(short)")
        #expect(short.stderr == "Error: '3f2' is too short to name a book: give its full id or at least 4 characters of it, or its title\n")
        #expect(short.stdout.isEmpty)
    }

    @Test func anAmbiguousPrefixIsRefusedListingTheCandidates() async throws {
        let run = try await sandbox.run("book", "rm", "3f2b1c9")
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr == """
            Error: '3f2b1c9' could be any of 3 books; give more of the id
              \(Self.dispossessed)  The Dispossessed — Ursula K. Le Guin
              \(Self.twin)  The Left Hand of Darkness — Ursula K. Le Guin
              \(Self.dune)  Dune — Frank Herbert

            """)
        // Nothing was removed.
        #expect(try await sandbox.run("--json", "books").json()["totalCount"] as? Int == 6)
    }

    @Test func anUnknownPrefixIsNotFound() async throws {
        let run = try await sandbox.run("task", "done", "ffff")
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr == "Error: no reading task with id or title 'ffff'\n")
    }

    // MARK: Titles

    @Test func aBookIsNamedByItsTitle() async throws {
        let show = try await sandbox.run("book", "show", "dispossessed")
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains("id        \(Self.dispossessed)\n"))
        // The title equal to the text wins over "Dune Messiah".
        #expect(try await sandbox.run("--json", "favorite", "DUNE").json()["id"] as? String == Self.dune)
        #expect(try await sandbox.run("--json", "read", "20", "--book", "messiah").json()["bookID"] as? String == "b-42")
        #expect(try await sandbox.run("--json", "notes", "--book", "the dispossessed").json()["bookID"] as? String == Self.dispossessed)
    }

    @Test func anAmbiguousTitleListsTheCandidates() async throws {
        let run = try await sandbox.run("book", "show", "l'etranger")
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr == """
            Error: 'l'etranger' could be any of 2 books; give more of the id
              c-1  L'Étranger — Albert Camus
              c-2  L'Étranger — Albert Camus

            """)
    }

    // MARK: Lists

    @Test func tablesShowTheShortestUniquePrefixAndJSONTheFullID() async throws {
        let books = try await sandbox.run("books")
        #expect(books.stdout == """
            ID          TITLE                      AUTHOR             FINISHED
            3f2b1c9f    Dune                       Frank Herbert      no
            b-42        Dune Messiah               Frank Herbert      no
            c-1         L'Étranger                 Albert Camus       no
            c-2         L'Étranger                 Albert Camus       yes
            3f2b1c9a-0  The Dispossessed           Ursula K. Le Guin  no
            3f2b1c9a-f  The Left Hand of Darkness  Ursula K. Le Guin  yes
            6 books

            """, "\(books)")
        let json = try await sandbox.run("--json", "books").json()
        #expect((json["books"] as? [[String: Any]])?.compactMap { $0["id"] as? String }.contains(Self.dune) == true)
    }

    @Test func notesShowTheirBooksTitles() async throws {
        let notes = try await sandbox.run("notes")
        #expect(notes.stdout == """
            ID        BOOK                         TITLE          BODY
            9c0ffee2  -                            Loose thought  Later.
            9c0ffee1  3f2b1c9a-0 The Dispossessed  Walls          On both sides.
            2 notes

            """, "\(notes)")
    }

    // MARK: Places

    @Test func openShowsTheDestinationAndBackTheNewTop() async throws {
        let book = try await sandbox.run("open", "shelf://book/3f2b1c9a-0")
        #expect(book.status == 0, "\(book)")
        #expect(book.stdout == """
            #  KIND  VALUE       TITLE             LINK
            1  book  3f2b1c9a-0  The Dispossessed  shelf://book/\(Self.dispossessed)

            Book: The Dispossessed
            FIELD     VALUE
            id        \(Self.dispossessed)
            author    Ursula K. Le Guin
            finished  no
            favorite  no

            NOTE      TITLE  BODY
            9c0ffee1  Walls  On both sides.
            1 note

            """)

        let author = try await sandbox.run("open", "shelf://author/ursula%20k.%20le%20guin")
        #expect(author.status == 0, "\(author)")
        #expect(author.stdout.hasSuffix("""
            Author: Ursula K. Le Guin
            BOOK        TITLE                      FINISHED
            3f2b1c9a-0  The Dispossessed           no
            3f2b1c9a-f  The Left Hand of Darkness  yes
            2 books

            """), "\(author)")

        let note = try await sandbox.run("open", "shelf://note/9c0ffee1")
        #expect(note.stdout.hasSuffix("""
            Note: Walls
            FIELD  VALUE
            id     9c0ffee1-0000
            book   3f2b1c9a-0 The Dispossessed

            On both sides.

            """), "\(note)")

        let path = try await sandbox.run("--json", "where").json()
        let entries = try #require(path["path"] as? [[String: Any]])
        #expect(entries.map { $0["value"] as? String } == [Self.dispossessed, "Ursula K. Le Guin", "9c0ffee1-0000"])
        #expect(entries.map { $0["title"] as? String } == ["The Dispossessed", "2 books", "Walls"])
        #expect((path["destination"] as? [String: Any])?["kind"] as? String == "note")

        let back = try await sandbox.run("back")
        #expect(back.stdout.contains("Author: Ursula K. Le Guin\n"), "\(back)")
        #expect(try await sandbox.run("back").stdout.contains("Book: The Dispossessed\n"))
        #expect(try await sandbox.run("back").stdout == "At the root: no screen open.\n")
    }

    @Test func aLinkToNothingIsRefusedAndNothingIsPushed() async throws {
        #expect(try await sandbox.run("open", "shelf://book/b-42").status == 0)

        for (link, message) in [
            ("shelf://book/ffff0000", "Error: shelf://book/ffff0000 leads nowhere: no book with id 'ffff0000'\n"),
            ("shelf://note/b-42", "Error: shelf://note/b-42 leads nowhere: no note with id 'b-42'\n"),
            ("shelf://note/b-4", "Error: shelf://note/b-4 leads nowhere: no note with id 'b-4'\n"),
            ("shelf://author/Nobody", "Error: shelf://author/Nobody leads nowhere: no book by 'Nobody' is on the shelf\n"),
        ] {
            let run = try await sandbox.run("open", link)
            #expect(run.status == 66, "\(run)")
            #expect(run.stderr == message)
            #expect(run.stdout.isEmpty)
        }
        let ambiguous = try await sandbox.run("open", "shelf://book/3f2b")
        #expect(ambiguous.status == 64, "\(ambiguous)")
        #expect(ambiguous.stderr.hasPrefix("Error: '3f2b' could be any of 3 books; give more of the id\n"))

        let path = try await sandbox.run("--json", "where").json()
        #expect((path["path"] as? [[String: Any]])?.map { $0["value"] as? String } == ["b-42"])
    }

    @Test func aPlaceRemovedSinceItWasOpenedSaysSo() async throws {
        #expect(try await sandbox.run("open", "shelf://note/9c0ffee2").status == 0)
        #expect(try await sandbox.run("note", "rm", "9c0ffee2").status == 0)

        let run = try await sandbox.run("where")
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.hasSuffix("Could not show shelf://note/9c0ffee2-0000: no note with id or title '9c0ffee2-0000'\n"), "\(run)")
    }
}
