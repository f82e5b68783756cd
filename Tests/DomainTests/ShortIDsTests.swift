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

    /// `gr-234225` (Goodreads' Book Id 234225) is never shown as `gr-23422`, which is the
    /// whole id another import may give Book Id 23422.
    @Test func aShortIDNeverEndsInsideANumber() {
        #expect(ShortID.shortestUniquePrefix(of: "gr-234225", before: nil, after: nil) == "gr-234225")
        #expect(ShortID.shortestUniquePrefix(of: "gr-234225-review", before: nil, after: nil) == "gr-234225")
        #expect(ShortID.shortestUniquePrefix(of: "gr-2342", before: nil, after: nil) == "gr-2342")
        #expect(ShortID.shortestUniquePrefix(of: "dd4bb789-e7e5-4da7", before: nil, after: nil) == "dd4bb789")
        #expect(ShortID.shortestUniquePrefix(of: "1234567890abcdef", before: nil, after: nil) == "1234567890")
        #expect(ShortID.shortestUniquePrefix(of: "gr-234225", before: "gr-234", after: "gr-235") == "gr-234225")
    }
}
