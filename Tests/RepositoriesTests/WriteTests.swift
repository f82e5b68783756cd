import Domain
import Foundation
import RecordDTOs
import Records
import Repositories
import Services
import Storage
import Testing
import TestSupport

@Suite("Repositories: local edits", .timeLimit(.minutes(1)))
struct WriteTests {
    // MARK: - Record and outbox together

    @Test func addingABookWritesTheRecordAndItsOutboxEntryAtOnce() async throws {
        let harness = try Harness()
        let repository = harness.books()

        let book = try await repository.addBook(title: "  Solaris ", author: "Stanisław Lem")

        #expect(book.title == "Solaris")
        let stored = try harness.store.record(.books, id: book.id)
        #expect(stored?.lastModified == nil)
        let fields = try Wire.fields(stored)
        #expect(fields["title"] as? String == "Solaris")
        #expect(fields["author_name"] as? String == "Stanisław Lem")
        #expect(fields["finished"] as? Bool == false)
        #expect(fields["id"] as? String == book.id)
        #expect(try harness.store.pendingCount(in: .books) == 1)
        #expect(try harness.store.outbox().map(\.kind) == [.create])
        #expect(try harness.store.outbox().map(\.recordID) == [book.id])
        // Written locally: no request was needed.
        #expect(await harness.refresher.calls.isEmpty)
    }

    @Test func newIdsAreRandomUUIDsThatTheServerAccepts() async throws {
        let store = try ShelfStore.inMemory()
        let repository = TaskRepository(store: store, refresher: FakeCollectionRefresher())

        let first = try await repository.addTask(title: "Read")
        let second = try await repository.addTask(title: "Read")

        #expect(first.id != second.id)
        #expect(UUID(uuidString: first.id) != nil)
        #expect(first.id == first.id.lowercased())
        #expect(try RecordID.validate(first.id) == first.id)
    }

    @Test func everyCollectionQueuesItsEdits() async throws {
        let harness = try Harness()
        let repositories = harness.repositories

        let note = try await repositories.notes.addNote(title: "Quote", body: "«Muchos años después»", bookID: "book-1")
        let task = try await repositories.tasks.addTask(title: "Finish chapter 3")
        _ = try await repositories.cart.setQuantity(2, of: "prod-1")

        let kinds = try harness.store.outbox().map { "\($0.collection.rawValue) \($0.recordID) \($0.kind.rawValue)" }
        #expect(kinds == ["notes \(note.id) create", "tasks \(task.id) create", "cart prod-1 create"])
        let noteFields = try Wire.fields(try harness.store.record(.notes, id: note.id))
        #expect(noteFields["book_id"] as? String == "book-1")
        #expect(noteFields["body"] as? String == "«Muchos años después»")
        let line = try Wire.fields(try harness.store.record(.cart, id: "prod-1"))
        #expect(line["product_id"] as? String == "prod-1")
        #expect(line["quantity"] as? Int == 2)
    }

    @Test func updatingASyncedRecordQueuesAnUpdateAgainstItsVersion() async throws {
        let harness = try Harness()
        try harness.store.pull([try Wire.book("b1", title: "Dune", lastModified: 1234)], into: .books)
        let repository = harness.books()

        var book = try #require(try await repository.book(id: "b1"))
        book.isFinished = true
        try await repository.updateBook(book)

        let entry = try #require(try harness.store.outbox().first)
        #expect(entry.kind == .update)
        #expect(entry.baseLastModified == 1234)
        #expect(try harness.store.record(.books, id: "b1")?.lastModified == 1234)
        #expect(try await repository.book(id: "b1")?.isFinished == true)
    }

    @Test func deletingHidesTheRecordAndQueuesTheDeletion() async throws {
        let harness = try Harness()
        try harness.store.pull([try Wire.book("b1", title: "Dune"), try Wire.book("b2", title: "Emma")], into: .books)
        let repository = harness.books()
        _ = try await repository.load()

        try await repository.deleteBook(id: "b1")

        #expect(titles(try await repository.load().value) == ["Emma"])
        #expect(try harness.store.outbox().map(\.kind) == [.delete])
        #expect(try await repository.book(id: "b1") == nil)
    }

    // MARK: - Fields this Shelf does not know

    @Test func anEditKeepsFieldsAnotherClientAdded() async throws {
        let harness = try Harness()
        let extra: [String: Any] = ["rating": 5, "tags": ["classic", "sf"], "shelf": ["room": "study", "row": 2], "note": NSNull()]
        try harness.store.pull([try Wire.book("b1", title: "Dune", author: "Frank Herbert", lastModified: 1234, extra: extra)], into: .books)
        let repository = harness.books()

        var book = try #require(try await repository.book(id: "b1"))
        try book.rename(to: "Dune Messiah")
        book.isFinished = true
        try await repository.updateBook(book)

        let fields = try Wire.fields(try harness.store.record(.books, id: "b1"))
        #expect(fields["title"] as? String == "Dune Messiah")
        #expect(fields["finished"] as? Bool == true)
        #expect(fields["author_name"] as? String == "Frank Herbert")
        #expect(fields["rating"] as? Int == 5)
        #expect(fields["tags"] as? [String] == ["classic", "sf"])
        let shelf = try #require(fields["shelf"] as? [String: Any])
        #expect(shelf["room"] as? String == "study")
        #expect(shelf["row"] as? Int == 2)
        #expect(fields["note"] is NSNull)
        // The server sets `last_modified`; the edit's base is the row's and the outbox's.
        #expect(fields["last_modified"] == nil)
        #expect(Set(fields.keys) == ["id", "title", "author_name", "finished", "rating", "tags", "shelf", "note"])
    }

    @Test func aWritesLineageReachesNoValueAndNoSearchButStaysInTheRow() async throws {
        let harness = try Harness()
        let plain = try Harness()
        let lineage = ["7f3c9a12-rev-one", "0b1d2e3f-rev-two"]
        try harness.store.pull(
            [try Wire.book("b1", title: "Dune", author: "Frank Herbert", lastModified: 1234, extra: [RecordLineage.field: lineage])],
            into: .books)
        try plain.store.pull([try Wire.book("b1", title: "Dune", author: "Frank Herbert", lastModified: 1234)], into: .books)
        let repository = harness.books()

        // THEN the book is the same value as without a lineage, and no search finds its ids
        let book = try #require(try await repository.book(id: "b1"))
        #expect(try await plain.books().book(id: "b1") == book)
        let found = try await repository.searchBooks(matching: "rev-one", unfinishedOnly: false, limit: nil, offset: 0)
        #expect(found.totalMatches == 0)

        // AND an edit keeps it in the row: the next write is pushed as its descendant
        var edited = book
        try edited.rename(to: "Dune Messiah")
        try await repository.updateBook(edited)
        let fields = try Wire.fields(try harness.store.record(.books, id: "b1"))
        #expect(fields[RecordLineage.field] as? [String] == lineage)
    }

    @Test func settingACartQuantityKeepsUnknownFieldsOfTheLine() async throws {
        let harness = try Harness()
        try harness.store.pull(
            [try Wire.record(.cart, ["id": "prod-1", "product_id": "prod-1", "quantity": 1], lastModified: 10, extra: ["gift": true])],
            into: .cart)
        let cart = harness.repositories.cart

        _ = try await cart.setQuantity(4, of: "prod-1")

        let fields = try Wire.fields(try harness.store.record(.cart, id: "prod-1"))
        #expect(fields["quantity"] as? Int == 4)
        #expect(fields["gift"] as? Bool == true)
    }

    // MARK: - Rules first

    @Test func ruleViolationsAreRejectedBeforeAnythingIsWritten() async throws {
        let harness = try Harness()
        let repositories = harness.repositories

        await #expect(throws: DomainError.emptyTitle(field: "title")) {
            try await repositories.books.addBook(title: "   ", author: "Anon")
        }
        await #expect(throws: DomainError.emptyTitle(field: "title")) {
            try await repositories.tasks.addTask(title: "")
        }
        await #expect(throws: DomainError.invalidIdentifier("no such/book")) {
            try await repositories.notes.addNote(title: "Quote", body: "", bookID: "no such/book")
        }
        await #expect(throws: DomainError.invalidQuantity(0)) {
            try await repositories.cart.setQuantity(0, of: "prod-1")
        }
        await #expect(throws: DomainError.invalidIdentifier("prod 1")) {
            try await repositories.cart.setQuantity(1, of: "prod 1")
        }
        await #expect(throws: DomainError.invalidIdentifier("../b1")) {
            try await repositories.books.deleteBook(id: "../b1")
        }

        #expect(try harness.store.pendingCount() == 0)
        for collection in CollectionName.allCases {
            #expect(try harness.store.count(RecordQuery(collection)) == 0)
        }
    }

    @Test func aBookMayHaveNoAuthor() async throws {
        let harness = try Harness()
        let book = try await harness.repositories.books.addBook(title: "Beowulf", author: "\n")
        #expect(book.author == "")
        #expect(try await harness.repositories.books.book(id: book.id)?.author == "", "it reads back")
    }

    @Test func updatingOrDeletingAMissingRecordIsNotFound() async throws {
        let harness = try Harness()
        let repositories = harness.repositories

        await #expect(throws: RepositoryError.notFound(.books, id: "b9")) {
            try await repositories.books.updateBook(try Book(id: "b9", title: "Dune", author: "Anon"))
        }
        await #expect(throws: RepositoryError.notFound(.notes, id: "n9")) {
            try await repositories.notes.deleteNote(id: "n9")
        }
        await #expect(throws: RepositoryError.notFound(.tasks, id: "t9")) {
            try await repositories.tasks.updateTask(try ReadingTask(id: "t9", title: "Read"))
        }
        // Removing what is not in the cart leaves the cart as asked: nothing to do.
        try await repositories.cart.removeFromCart(productID: "prod-9")

        #expect(try harness.store.pendingCount() == 0)
        #expect(try harness.store.count(RecordQuery(.books)) == 0)
    }

    @Test func aNewIdThatIsAlreadyInUseIsRefused() async throws {
        let harness = try Harness()
        try harness.store.pull([try Wire.book("id-1", title: "Dune")], into: .books)
        let repository = harness.books()  // its ids are id-1, id-2, …

        await #expect(throws: RepositoryError.idInUse(.books, id: "id-1")) {
            try await repository.addBook(title: "Emma", author: "Jane Austen")
        }
        #expect(try harness.store.pendingCount() == 0)
        #expect(try await repository.book(id: "id-1")?.title == "Dune")
    }

    // MARK: - The cart

    @Test func settingAQuantityTwiceChangesOneLine() async throws {
        let harness = try Harness()
        let cart = harness.repositories.cart

        _ = try await cart.setQuantity(1, of: "prod-1")
        let item = try await cart.setQuantity(3, of: "prod-1")

        #expect(item == (try CartItem(productID: "prod-1", quantity: 3)))
        #expect(try await cart.cartItems() == [item])
        #expect(try harness.store.outbox().map(\.kind) == [.create])

        try await cart.removeFromCart(productID: "prod-1")
        #expect(try await cart.cartItems().isEmpty)
        // Created and removed before any sync: the server never needs to hear of it.
        #expect(try harness.store.pendingCount() == 0)
    }

    // MARK: - The catalog

    @Test func theCatalogHasNoWritePath() async throws {
        // The catalog's DTO is not a writable record shape, so no edit can be built for it.
        #expect(!isWritable(ProductDTO.self))
        #expect(isWritable(BookDTO.self) && isWritable(CartItemDTO.self))

        // Reading it (and filling the cart from it) never queues a catalog change.
        let harness = try Harness()
        let store = harness.store
        await harness.refresher.onRefresh(.products) {
            try store.pull([try Wire.product("prod-1", name: "Bookmark, brass", priceMinor: 450)], into: .products)
            return RefreshSummary(changedRecords: 1)
        }
        let repositories = harness.repositories
        let products = try await repositories.catalog.products(forceRefresh: false)
        _ = try await repositories.cart.setQuantity(2, of: products[0].id)

        #expect(products.map(\.price.formatted) == ["4.50 EUR"])
        #expect(try store.pendingCount(in: .products) == 0)
        #expect(try store.outbox().map(\.collection) == [.cart])
    }

    // MARK: - The in-memory copy follows edits

    @Test func theCopyFollowsEditsInTheStoresOrder() async throws {
        let harness = try Harness()
        try harness.store.pull([
            try Wire.book("b1", title: "Dune", author: "Frank Herbert"),
            try Wire.book("b2", title: "Émile", author: "Rousseau"),
            try Wire.book("b3", title: "emma", author: "Jane Austen"),
            try Wire.book("b4", title: "Dune", author: "Anon"),
            try Wire.book("b5", title: "Dune", author: "Zoe"),
        ], into: .books)
        let repository = harness.books()
        _ = try await repository.load()

        _ = try await repository.addBook(title: "Zazie dans le métro", author: "Raymond Queneau")
        _ = try await repository.addBook(title: "Émile", author: "Abel")
        _ = try await repository.addBook(title: "dune", author: "Brian Herbert")
        // After "Dune ␟ Zoe" in the store's order: the field separator sorts before a space.
        _ = try await repository.addBook(title: "Dune Messiah", author: "Frank Herbert")
        var renamed = try #require(try await repository.book(id: "b1"))
        try renamed.rename(to: "Éclipse")
        try await repository.updateBook(renamed)
        try await repository.deleteBook(id: "b3")

        let cached = try await repository.load().value
        let fromStore = try await BookRepository(store: harness.store, refresher: FakeCollectionRefresher()).load().value
        #expect(cached.map(\.id) == fromStore.map(\.id))
        #expect(cached == fromStore)
        #expect(cached.count == 8)
    }

    @Test func theNotesCopyOrdersByTitleThenTheStartOfTheBody() async throws {
        // Bodies that differ at character 64 (part of the key) and at 65 (not: the id decides).
        let harness = try Harness()
        let a63 = String(repeating: "a", count: 63)
        let a64 = a63 + "a"
        try harness.store.pull([
            try Wire.note("n1", title: "Quote", body: a63 + "b"),
            try Wire.note("n2", title: "quote", body: "Ça"),
            try Wire.note("n3", title: "Quote", body: a64 + "b"),
        ], into: .notes)
        let repository = harness.repositories.notes
        _ = try await repository.loadNotes()

        _ = try await repository.addNote(title: "Quote", body: a63 + "z", bookID: nil)
        _ = try await repository.addNote(title: "QUOTE", body: a64 + "z", bookID: nil)
        _ = try await repository.addNote(title: "QUOTE", body: "ca", bookID: nil)
        _ = try await repository.addNote(title: "Quote", body: "", bookID: nil)

        let cached = try await repository.loadNotes()
        let fromStore = try await NoteRepository(store: harness.store, refresher: FakeCollectionRefresher()).loadNotes()
        #expect(cached.map(\.id) == fromStore.map(\.id))
        #expect(cached == fromStore)
    }

    @Test func anEditDuringARefreshIsKeptWhenTheRefreshLands() async throws {
        let harness = try Harness()
        let store = harness.store
        let gate = SuspensionGate<RefreshSummary>()
        await harness.refresher.enqueue(.gate(gate), for: .tasks)
        await harness.refresher.onRefresh(.tasks) {
            try store.pull([try Wire.task("t1", title: "From another device")], into: .tasks)
            return RefreshSummary(changedRecords: 1)
        }
        let repository = harness.repositories.tasks

        let load = Task { try await repository.tasks() }
        await gate.arrival()
        let mine = try await repository.addTask(title: "Mine")
        await gate.open(with: .unchanged)

        #expect(try await load.value.map(\.title) == ["From another device", "Mine"])
        #expect(try await repository.tasks().map(\.id) == ["t1", mine.id])
    }
}

/// Whether a DTO is one Shelf can write (resolved at compile time by overloading).
private func isWritable<DTO: RecordDTO>(_: DTO.Type) -> Bool { false }
private func isWritable<DTO: WritableRecordDTO>(_: DTO.Type) -> Bool { true }
