import Domain
import Foundation
import RecordDTOs
import Records
import Testing
import TestSupport

@Suite("Record DTOs")
struct RecordDTOTests {
    /// A recorded list page's live records as Domain values: the page read by Records'
    /// scanner, its records by their DTO.
    private func page<DTO: RecordDTO>(_ type: DTO.Type, _ name: String) throws -> [Versioned<DTO.Value>] {
        try decode(type, try RecordedResponses.body(name))
    }

    private func decode<DTO: RecordDTO>(_ type: DTO.Type, _ body: Data) throws -> [Versioned<DTO.Value>] {
        try RecordDecoding.decode(type, records: try RecordListScanner.records(in: body, maximumRecords: 10_000))
    }

    // MARK: Wire → Domain, from recorded pages

    @Test func booksMapAuthorNameAndFinished() throws {
        let books = try page(BookDTO.self, "books-page-1")
        #expect(books.map(\.value) == [
            try Book(id: "book-001", title: "Dune", author: "Frank Herbert", isFinished: true),
            try Book(id: "book-002", title: "Cien años de soledad", author: "Gabriel García Márquez", isFinished: false),
        ])
        #expect(books[0].lastModified < books[1].lastModified)
    }

    @Test func escapedTextAndSurrogatePairsDecode() throws {
        let books = try page(BookDTO.self, "books-page-2")
        #expect(books[0].value.title == #"The "Quoted" Book \ 📚"#)
    }

    @Test func notesKeepANullBookAndLineBreaks() throws {
        let notes = try page(NoteDTO.self, "notes-page").map(\.value)
        #expect(notes == [
            try Note(id: "note-001", bookID: "book-002", title: "Macondo — first sentence", body: "Muchos años después…\nline two"),
            try Note(id: "note-002", bookID: nil, title: "Loose thought", body: ""),
        ])
    }

    @Test func tasksCartAndProductsDecode() throws {
        let tasks = try page(ReadingTaskDTO.self, "tasks-page").map(\.value)
        #expect(tasks == [try ReadingTask(id: "task-001", title: "Finish Dune"), try ReadingTask(id: "task-002", title: "Return the library book", isDone: true)])

        let cart = try page(CartItemDTO.self, "cart-page").map(\.value)
        #expect(cart == [try CartItem(productID: "prod-002", quantity: 1), try CartItem(productID: "prod-014", quantity: 3)])

        let products = try page(ProductDTO.self, "products-page").map(\.value)
        #expect(products.count == 5)
        #expect(products[0] == (try Product(id: "prod-001", name: "Hardcover notebook, dotted", price: Money(minorUnits: 1450, currency: "EUR"))))
    }

    @Test func tombstonesAreLeftOutOfDomainLists() throws {
        let books = try page(BookDTO.self, "books-since-tombstones")
        #expect(books.map(\.value.id) == ["book-004"])
    }

    // MARK: Domain → wire

    @Test func encodingUsesTheWireNames() throws {
        let note = try Note(id: "n1", bookID: nil, title: "T", body: "B")
        let json = try JSONDecoder().decode([String: JSONValue].self, from: try NoteDTO(note).encodedData())
        #expect(json == ["id": .string("n1"), "book_id": .null, "title": .string("T"), "body": .string("B")])

        let book = try Book(id: "b1", title: "Dune", author: "Frank Herbert", isFinished: true)
        let bookJSON = try JSONDecoder().decode([String: JSONValue].self, from: try BookDTO(book).encodedData())
        #expect(bookJSON == ["id": .string("b1"), "title": .string("Dune"), "author_name": .string("Frank Herbert"), "finished": .bool(true)])

        let item = try CartItem(productID: "prod-002", quantity: 2)
        let itemJSON = try JSONDecoder().decode([String: JSONValue].self, from: try CartItemDTO(item).encodedData())
        #expect(itemJSON == ["id": .string("prod-002"), "product_id": .string("prod-002"), "quantity": .number(2)])
    }

    @Test func everyWritableShapeRoundTrips() throws {
        let book = try Book(id: "b1", title: "Dune", author: "Frank Herbert")
        #expect(try RecordDecoding.decode(BookDTO.self, from: raw(BookDTO(book))).value == book)
        let note = try Note(id: "n1", bookID: "b1", title: "T", body: "é\n📚")
        #expect(try RecordDecoding.decode(NoteDTO.self, from: raw(NoteDTO(note))).value == note)
        let task = try ReadingTask(id: "t1", title: "Read", isDone: true)
        #expect(try RecordDecoding.decode(ReadingTaskDTO.self, from: raw(ReadingTaskDTO(task))).value == task)
        let item = try CartItem(productID: "p1", quantity: 4)
        #expect(try RecordDecoding.decode(CartItemDTO.self, from: raw(CartItemDTO(item))).value == item)
    }

    private func raw(_ dto: some WritableRecordDTO) throws -> RawRecord {
        var fields = try JSONDecoder().decode([String: JSONValue].self, from: try dto.encodedData())
        fields["last_modified"] = .number(42)
        return try RawRecord(scanning: try JSONEncoder().encode(fields))
    }

    // MARK: Rejected pages

    @Test func aMistypedFieldNamesRecordAndPath() throws {
        let body = try RecordedResponses.body("handmade-invalid-fields-page")
        let failure = #expect(throws: RecordDecodingError.self) { try decode(BookDTO.self, body) }
        #expect(failure?.path == "data[1] (id book-002).finished")
        #expect(failure?.message.contains("true or false") == true)
    }

    @Test func aDomainRuleViolationIsADecodingErrorWithTheRule() throws {
        let body = try RecordedResponses.body("handmade-empty-title-page")
        let failure = #expect(throws: RecordDecodingError.self) { try decode(BookDTO.self, body) }
        #expect(failure?.domainError == .emptyTitle(field: "title"))
        #expect(failure?.path == "data[1] (id book-002)")
        #expect(failure?.description.contains("title must not be empty") == true)
    }

    /// A body that is not a page never reaches a DTO: the scanner refuses it, at its offset.
    @Test func malformedJSONIsRejectedWithAnOffset() throws {
        let body = try RecordedResponses.body("malformed-truncated-page")
        let error = #expect(throws: JSONScanError.self) { try decode(BookDTO.self, body) }
        #expect(error?.offset != nil)
    }

    @Test func duplicateIDsAreRejected() throws {
        let body = try RecordedResponses.body("handmade-duplicate-ids-page")
        let failure = #expect(throws: RecordDecodingError.self) { try decode(BookDTO.self, body) }
        #expect(failure?.domainError == .duplicateIdentities(["book-001"]))
        #expect(failure?.path == "data")
    }

    @Test func aMissingFieldIsNamed() throws {
        let record = try RawRecord(scanning: Data(#"{"id":"b1","last_modified":1,"title":"Dune","finished":false}"#.utf8))
        let error = #expect(throws: RecordDecodingError.self) { try RecordDecoding.decode(BookDTO.self, from: record) }
        #expect(error?.message == #"missing field "author_name""#)
        #expect(error?.path == "data (id b1)")
    }

    @Test func aCartLineWhoseProductDisagreesWithItsIDIsRefused() throws {
        let record = try RawRecord(scanning: Data(#"{"id":"prod-1","product_id":"prod-2","quantity":1,"last_modified":1}"#.utf8))
        let error = #expect(throws: RecordDecodingError.self) { try RecordDecoding.decode(CartItemDTO.self, from: record) }
        #expect(error?.domainError != nil)
    }
}
