import Domain
import Foundation
import Records
import Repositories
import Storage
import Testing
import TestSupport

@Suite("Repositories: searches and filters through the store's indexes")
struct QueryTests {
    /// The sample shelf's books in the store, refreshed once so reads ask nothing more.
    private func shelf() async throws -> (Harness, BookRepository) {
        let harness = try Harness(policy: FreshnessPolicy(maxAge: .seconds(3600)))
        let records = try SampleShelf.books().enumerated().map { offset, book in
            try Wire.book(book.id, title: book.title, author: book.author, finished: book.isFinished, lastModified: Int64(1000 + offset))
        }
        try harness.store.pull(records, into: .books)
        let repository = harness.books()
        _ = try await repository.load()
        return (harness, repository)
    }

    @Test func searchIgnoresCaseAndDiacritics() async throws {
        let (_, repository) = try await shelf()

        #expect(titles(try await repository.books(matching: "garcia marquez").value.items) == ["Cien años de soledad"])
        #expect(titles(try await repository.books(matching: "ETRANGER").value.items) == ["L'Étranger"])
        #expect(titles(try await repository.books(matching: "  le guin ").value.items) == ["A Wizard of Earthsea"])
        #expect(titles(try await repository.books(matching: "AÑOS").value.items) == ["Cien años de soledad"])
        #expect(try await repository.books(matching: "tolkien").value.items.isEmpty)
    }

    @Test func theUnfinishedFilterLeavesFinishedBooksOut() async throws {
        let (_, repository) = try await shelf()

        let unfinished = try await repository.books(unfinishedOnly: true).value
        #expect(titles(unfinished.items) == ["A Wizard of Earthsea", "L'Étranger"])
        #expect(unfinished.totalMatches == 2)

        let searched = try await repository.books(matching: "a", unfinishedOnly: true).value
        #expect(titles(searched.items) == ["A Wizard of Earthsea", "L'Étranger"])
        #expect(titles(try await repository.books(matching: "dune", unfinishedOnly: true).value.items).isEmpty)
    }

    @Test func pagesCountEveryMatch() async throws {
        let (_, repository) = try await shelf()

        let first = try await repository.books(matching: "e", limit: 2).value
        let second = try await repository.books(matching: "e", limit: 2, offset: 2).value

        #expect(first.totalMatches == 4)
        #expect(titles(first.items) == ["A Wizard of Earthsea", "Cien años de soledad"])
        #expect(titles(second.items) == ["Dune", "L'Étranger"])
        #expect(second.offset == 2)
    }

    @Test func aPageWithoutALimitCountsEveryMatchPastItsOffset() async throws {
        let (_, repository) = try await shelf()

        let rest = try await repository.books(matching: "e", offset: 2).value
        #expect(titles(rest.items) == ["Dune", "L'Étranger"])
        #expect(rest.totalMatches == 4)

        let beyond = try await repository.books(matching: "e", offset: 10).value
        #expect(beyond.items.isEmpty)
        #expect(beyond.totalMatches == 4)
    }

    @Test func aSearchSeesLocalEditsAtOnce() async throws {
        let (harness, repository) = try await shelf()

        let added = try await repository.addBook(title: "Tōkyō Monogatari", author: "Anon")
        #expect(try await repository.books(matching: "tokyo").value.items == [added])
        #expect(await harness.refresher.callCount(.books) == 1)
    }

    @Test func onlyTheMatchingRecordsAreDecoded() async throws {
        // GIVEN a record another client wrote with an empty title, which Shelf cannot show
        let (harness, repository) = try await shelf()
        try harness.store.pull([try Wire.book("bad-1", title: "", author: "Nobody Known")], into: .books)
        await repository.invalidate()

        // THEN a search that does not match it never decodes it
        let dune = try await repository.books(matching: "dune")
        #expect(titles(dune.value.items) == ["Dune"])
        #expect(dune.unreadable.isEmpty)

        // AND one that matches it reports it instead of dropping it silently
        let nobody = try await repository.books(matching: "nobody")
        #expect(nobody.value.items.isEmpty)
        #expect(nobody.value.totalMatches == 1)
        #expect(nobody.unreadable.map(\.id) == ["bad-1"])
        #expect(nobody.unreadable.first?.reason.contains("title") == true)

        // AND the full list shows the rest and reports it too
        let all = try await repository.load()
        #expect(all.value.count == 4)
        #expect(all.unreadable.map(\.id) == ["bad-1"])
        await #expect(throws: RepositoryError.self) { try await repository.book(id: "bad-1") }
    }

    @Test func aListReadsEveryRecordAsTheDecoderWould() async throws {
        // GIVEN a book whose title is written twice, which readers disagree on (JSONDecoder
        // keeps the first, a dictionary the last): it never reaches the store
        let (harness, repository) = try await shelf()
        let twice = #"{"id":"twice-1","title":"First Title","title":"Second Title","author_name":"Anon","finished":false,"last_modified":5000}"#
        #expect(throws: (any Error).self) { try RawRecord(collection: .books, json: Data(twice.utf8)) }
        // AND one the Domain refuses, which does
        try harness.store.pull([try Wire.book("bad-1", title: "", author: "Nobody Known")], into: .books)
        await repository.invalidate()

        // WHEN the whole shelf is listed
        let all = try await repository.books().value

        // THEN the refused book is reported
        #expect(all.items.count == 4)
        let unreadable = try await repository.books().unreadable
        #expect(unreadable.map(\.id) == ["bad-1"])
        #expect(unreadable.first?.reason.contains("title") == true)
    }

    @Test func theBookSearchPortCountsMatchesAndTheWholeLibrary() async throws {
        let (harness, repository) = try await shelf()
        let search: any BookSearching = repository

        let garcia = try await search.searchBooks(matching: "GARCIA", unfinishedOnly: false, limit: nil, offset: 0)
        #expect(titles(garcia.books) == ["Cien años de soledad"])
        #expect(garcia.totalMatches == 1)
        #expect(garcia.totalBooks == 4)

        let unfinished = try await search.searchBooks(matching: "  ", unfinishedOnly: true, limit: 1, offset: 1)
        #expect(titles(unfinished.books) == ["L'Étranger"])
        #expect((unfinished.totalMatches, unfinished.totalBooks, unfinished.offset) == (2, 4, 1))

        let everything = try await search.searchBooks(matching: "", unfinishedOnly: false, limit: nil, offset: 0)
        #expect(everything.books.count == 4)
        #expect((everything.totalMatches, everything.totalBooks) == (4, 4))
        #expect(await harness.refresher.callCount(.books) == 1)
    }

    @Test func aLimitedSearchThatDoesNotCountReadsOnePastItsPage() async throws {
        let (_, repository) = try await shelf()
        let search: any BookSearching = repository

        let first = try await search.searchBooks(
            matching: "e", unfinishedOnly: false, limit: 2, offset: 0, order: .standard, counting: false)
        #expect(titles(first.books) == ["A Wizard of Earthsea", "Cien años de soledad"])
        #expect((first.totalMatches, first.totalBooks, first.hasMore) == (nil, nil, true))

        let last = try await search.searchBooks(
            matching: "e", unfinishedOnly: false, limit: 2, offset: 2, order: .standard, counting: false)
        #expect(titles(last.books) == ["Dune", "L'Étranger"])
        #expect((last.totalMatches, last.hasMore) == (4, false), "the last page knows the count")

        let byAuthor = try await search.searchBooks(
            matching: "", unfinishedOnly: false, limit: 1, offset: 0, order: ListOrder(.author, descending: true), counting: true)
        #expect(byAuthor.books.map(\.author) == ["Ursula K. Le Guin"])
        #expect((byAuthor.totalMatches, byAuthor.totalBooks, byAuthor.hasMore) == (4, 4, true))
    }

    @Test func theBookSearchPortThrowsARefreshFailureOnlyWhenNothingIsCached() async throws {
        let harness = try Harness()
        await harness.refresher.enqueue(.failure(FakeError("connection refused")), for: .books)
        let repository = harness.books()
        await #expect(throws: FakeError.self) {
            try await repository.searchBooks(matching: "dune", unfinishedOnly: false, limit: nil, offset: 0)
        }

        _ = try await repository.addBook(title: "Dune", author: "Frank Herbert")
        await harness.refresher.enqueue(.failure(FakeError("connection refused")), for: .books)
        let page = try await repository.searchBooks(matching: "dune", unfinishedOnly: false, limit: nil, offset: 0)
        #expect(titles(page.books) == ["Dune"])
        #expect(page.totalBooks == 1)
    }

    @Test func notesAreSearchedInTitleAndBody() async throws {
        let harness = try Harness()
        let records = try SampleShelf.notes().map { note in
            try Wire.note(note.id, title: note.title, body: note.body, bookID: note.bookID)
        }
        try harness.store.pull(records, into: .notes)
        let notes = harness.repositories.notes

        #expect(try await notes.notes(matching: "muchos anos").value.items.map(\.id) == ["note-003"])
        #expect(try await notes.notes(matching: "etranger").value.items.map(\.id) == ["note-001"])
        #expect(try await notes.notes(matching: "page").value.totalMatches == 3)
        #expect(try await notes.note(id: "note-001")?.bookID == "book-005")
    }

    @Test func tasksCanBeFilteredToOpenOnes() async throws {
        let harness = try Harness()
        let records = try SampleShelf.tasks().map { task in try Wire.task(task.id, title: task.title, done: task.isDone) }
        try harness.store.pull(records, into: .tasks)
        let tasks = harness.repositories.tasks

        let open = try await tasks.tasks(openOnly: true).value
        #expect(open.items.map(\.id) == ["task-003", "task-002"])
        #expect(try await tasks.tasks(matching: "etranger", openOnly: true).value.items.map(\.id) == ["task-002"])
        #expect(try await tasks.tasks(matching: "dune").value.items.map(\.isDone) == [true])
    }

    @Test func productsAreSearchedByName() async throws {
        let harness = try Harness()
        let records = try SampleShelf.products().map { product in
            try Wire.product(product.id, name: product.name, priceMinor: product.price.minorUnits, currency: product.price.currency)
        }
        try harness.store.pull(records, into: .products)
        let catalog = harness.repositories.catalog

        #expect(try await catalog.products(matching: "cafe").value.items.map(\.name) == ["Café au lait mug"])
        #expect(try await catalog.product(id: "prod-004")?.price.formatted == "15.00 USD")
        #expect(try await catalog.products(forceRefresh: false).map(\.id) == ["prod-001", "prod-003", "prod-002", "prod-004"])
    }
}
