import Domain
import Testing

@Suite("Short ids a list shows")
struct ShortIDsTests {
    @Test func mergesAddAndReplacePerCollection() {
        var shortIDs = ShortIDs.full
        shortIDs.merge(.books, ["book-0001": "book-000", "book-0002": "book-0002"])
        shortIDs.merge(.notes, ["note-1": "note-1"])
        shortIDs.merge(.books, ["book-0002": "book-00", "book-0003": "book-0003"])

        #expect(shortIDs.shown("book-0001", in: .books) == "book-000")
        #expect(shortIDs.shown("book-0002", in: .books) == "book-00", "a later merge replaces a prefix")
        #expect(shortIDs.shown("book-0003", in: .books) == "book-0003")
        #expect(shortIDs.shown("note-1", in: .notes) == "note-1")
        #expect(shortIDs.shown("book-0001", in: .notes) == "book-0001", "another collection's prefixes are not used")
        #expect(shortIDs.shown("unknown", in: .books) == "unknown")
        #expect(shortIDs == ShortIDs([
            .books: ["book-0001": "book-000", "book-0002": "book-00", "book-0003": "book-0003"], .notes: ["note-1": "note-1"],
        ]))
    }
}
