import Domain
import Foundation
import Records
import Repositories
import Storage
import Testing
import TestSupport

/// Import from Goodreads, Calibre and Shelf's own export, and export, over an in-memory
/// store: counts, idempotence, all-or-nothing, and the round trip.
@Suite("Import and export")
struct InterchangeTests {
    static let goodreads = "import/goodreads_library_export.csv"

    private func importFile(_ path: String, into store: ShelfStore, format: ImportFormat? = nil, dryRun: Bool = false) throws -> ImportReport {
        let plan = try LibraryImport.plan(fileAt: FixtureFiles.url(path), format: format)
        return try LibraryImport.apply(plan, to: store, file: path, dryRun: dryRun)
    }

    private func count(_ collection: CollectionName, in store: ShelfStore) throws -> Int {
        try store.count(RecordQuery(collection))
    }

    // MARK: CSV

    @Test func csvKeepsQuotedCommasQuotesAndNewlinesAndNamesEachRecordsFirstLine() throws {
        let text = "\u{FEFF}a,b\r\n\"x, y\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",z\n\nlast,\n"
        let records = try CSVReader.records(Data(text.utf8))
        #expect(records.map(\.fields) == [["a", "b"], ["x, y", "say \"hi\""], ["two\nlines", "z"], ["last", ""]])
        #expect(records.map(\.line) == [1, 2, 3, 6])
    }

    @Test(arguments: [
        ("a,b\n\"open,c\n", 2, "a quoted field is not closed"),
        ("a,b\nx,y\"z\n", 2, "a quote inside an unquoted field (quote the whole field)"),
        ("a,b\n\"x\"y,z\n", 2, "text after a closing quote (a quote inside a quoted field must be doubled)"),
        ("a,b\n\"x,y\n1,\"2\"\n", 2, "a quoted field that starts here is not closed (it runs on to line 3)"),
    ])
    func malformedCSVNamesTheLineItStartsOn(text: String, line: Int, reason: String) {
        #expect(throws: CSVReader.Malformed(line: line, reason: reason)) { try CSVReader.records(Data(text.utf8)) }
    }

    @Test func csvLinesQuoteOnlyWhatNeedsIt() throws {
        let line = CSVReader.line(["plain", "a,b", "say \"hi\"", "two\nlines"])
        #expect(line == "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\"\r\n")
        #expect(try CSVReader.records(Data(line.utf8)).first?.fields == ["plain", "a,b", "say \"hi\"", "two\nlines"])
    }

    // MARK: Goodreads

    @Test func theFormatIsGuessedFromTheContent() throws {
        #expect(ImportFormat.guess(try FixtureFiles.data(Self.goodreads)) == .goodreads)
        #expect(ImportFormat.guess(try FixtureFiles.data("import/calibre_list.json")) == .calibre)
        #expect(ImportFormat.guess(Data("hello,world\n".utf8)) == nil)
    }

    @Test func aGoodreadsExportImportsBooksAndReviewsAndSaysWhatItSkipped() throws {
        let store = try ShelfStore.inMemory()
        let report = try importFile(Self.goodreads, into: store)

        // 220 rows: 2 repeat an earlier Book Id, 3 have no title (see make_goodreads_export.py).
        #expect(report.rows == 220)
        #expect(report.collections["books"]?.added == 215)
        #expect(report.collections["notes"]?.added == 107)
        #expect(try count(.books, in: store) == 215)
        #expect(try count(.notes, in: store) == 107)
        #expect(report.skipped == 5)
        #expect(report.issues.filter { !$0.imported }.map(\.reason).sorted().first == "no title")
        #expect(report.issues.contains { $0.location == "line 135" && $0.reason == "the same Book Id 1336 as line 68" })
        #expect(report.issues.filter(\.imported).isEmpty, "an empty author is imported empty")

        let dune = try Wire.fields(try store.record(.books, id: "gr-1014"))
        #expect(dune["title"] as? String == "Dune")
        #expect(dune["author_name"] as? String == "Frank Herbert")
        #expect((dune["isbn"] as? String)?.count == 10, "=\"…\" unwrapped")
        #expect((dune["isbn13"] as? String)?.hasPrefix("978") == true)
        let editions = try store.records(RecordQuery.books(search: "Dune (vol."))
        #expect(editions.count > 1, "the same title under other Book Ids are separate books")

        #expect(try store.record(.notes, id: "gr-1035-review") == nil, "a skipped row's review is skipped with it")
        let multiLine = try Wire.fields(try store.record(.notes, id: "gr-1091-review"))
        #expect(multiLine["body"] as? String == "First line.\nSecond line, with a comma.\n\nThird, after a blank line.")
        #expect(multiLine["book_id"] as? String == "gr-1091")
        #expect((multiLine["title"] as? String)?.hasPrefix("Review: ") == true)
        let html = try Wire.fields(try store.record(.notes, id: "gr-1028-review"))
        #expect(html["body"] as? String == "A slow start.\n\nThen it \"clicks\", and you can't stop.")

        let accented = try Wire.fields(try store.record(.books, id: "gr-1000"))
        #expect(accented["author_name"] as? String == "Gabriel García Márquez")
        #expect(accented["finished"] as? Bool == true, "Exclusive Shelf 'read'")
        #expect(try Wire.fields(try store.record(.books, id: "gr-1007"))["finished"] as? Bool == true)
        #expect(try Wire.fields(try store.record(.books, id: "gr-1014"))["finished"] as? Bool == false, "to-read")
    }

    /// The report says, column by column, what the 215 imported rows held and what
    /// became of it (counts read off the fixture with Python's csv module); columns
    /// nobody filled in (`Spoiler`, `Private Notes`) lost nothing and are not listed.
    @Test func aGoodreadsImportSaysFieldByFieldWhatItKeptAndWhatItDropped() throws {
        let store = try ShelfStore.inMemory()
        let report = try importFile(Self.goodreads, into: store)
        let byName = Dictionary(uniqueKeysWithValues: report.fields.map { ($0.source, $0) })

        #expect(byName["Title"] == ImportField(source: "Title", keptAs: "title", rows: 215))
        #expect(byName["Author"]?.keptAs == "author" && byName["Author"]?.rows == 202)
        #expect(byName["Exclusive Shelf"]?.keptAs == "finished")
        #expect(byName["My Review"]?.keptAs == "a note on the book" && byName["My Review"]?.rows == 107)
        #expect(byName["ISBN"]?.rows == 172, "an empty =\"\" holds nothing")
        #expect(byName["My Rating"] == ImportField(source: "My Rating", keptAs: nil, rows: 172, reason: "Shelf keeps no ratings"),
                "a rating of 0 is no rating")
        #expect(byName["Bookshelves"]?.isDropped == true && byName["Bookshelves"]?.rows == 107)
        #expect(byName["Date Read"]?.isDropped == true && byName["Date Read"]?.rows == 108)
        #expect(byName["Read Count"]?.rows == 108)
        #expect(byName["Publisher"]?.reason == "not a field Shelf keeps")
        for empty in ["Spoiler", "Private Notes", "Additional Authors", "Owned Copies"] {
            #expect(byName[empty] == nil, "\(empty) held nothing")
        }
        #expect(report.fields.first?.source == "Book Id", "the file's order")
        #expect(Set(report.droppedFields.map(\.source)) == [
            "Author l-f", "My Rating", "Average Rating", "Publisher", "Binding", "Number of Pages", "Year Published",
            "Original Publication Year", "Date Read", "Date Added", "Bookshelves", "Bookshelves with positions", "Read Count",
        ])
    }

    @Test func aCalibreImportSaysWhichKeysItDropped() throws {
        let data = Data("""
            [{"id": 1, "uuid": "AB-1", "title": "Dune", "authors": "Frank Herbert", "rating": 8, "tags": ["sf"], "#read": true},
             {"id": 2, "title": "Solaris", "authors": "", "rating": null, "tags": [], "series": "None"}]
            """.utf8)
        let plan = try LibraryImport.plan(data, format: .calibre, file: "c.json")
        let byName = Dictionary(uniqueKeysWithValues: plan.fields.map { ($0.source, $0) })
        #expect(byName["title"]?.keptAs == "title" && byName["title"]?.rows == 2)
        #expect(byName["authors"]?.rows == 1, "an empty author is kept empty")
        #expect(byName["rating"] == ImportField(source: "rating", keptAs: nil, rows: 1, reason: "Shelf keeps no ratings"))
        #expect(byName["tags"]?.isDropped == true && byName["tags"]?.rows == 1, "an empty list holds nothing")
        #expect(byName["series"]?.isDropped == true)
        #expect(plan.items.first { $0.id == "cal-2" }?.fields["author_name"] == .string(""))
    }

    @Test func importingTheSameExportTwiceAddsNothing() throws {
        let store = try ShelfStore.inMemory()
        _ = try importFile(Self.goodreads, into: store)
        let pending = try store.pendingCount()

        let again = try importFile(Self.goodreads, into: store)

        #expect(again.added == 0 && again.updated == 0)
        #expect(again.unchanged == 215 + 107)
        #expect(try count(.books, in: store) == 215)
        #expect(try store.pendingCount() == pending)
    }

    @Test func anExportWithoutAByteOrderMarkReadsTheSame() throws {
        var data = try FixtureFiles.data(Self.goodreads)
        #expect(data.starts(with: [0xEF, 0xBB, 0xBF]))
        data.removeFirst(3)
        let plan = try LibraryImport.plan(data, format: nil, file: "no-bom.csv")
        #expect(plan.format == .goodreads)
        #expect(plan.items.count == 215 + 107)
    }

    @Test func aMalformedExportIsRefusedNamingItsFirstBadLineAndNothingIsWritten() throws {
        let store = try ShelfStore.inMemory()
        #expect {
            _ = try importFile("import/goodreads_malformed.csv", into: store)
        } throws: { error in
            let failure = try #require(error as? ImportError)
            return failure.kind == .malformed && failure.reason.hasPrefix("line 5: a quoted field that starts here is not closed")
                && failure.description.contains("nothing was imported")
        }
        #expect(try count(.books, in: store) == 0)
        #expect(try store.pendingCount() == 0)
    }

    @Test func aRowWithTheWrongNumberOfFieldsIsMalformed() throws {
        let header = "Book Id,Title,Author,Exclusive Shelf\n"
        let data = Data((header + "1,Dune,Frank Herbert,read\n2,Solaris,Lem\n").utf8)
        #expect(throws: ImportError(.malformed, file: "f.csv", reason: "line 3: 3 fields, the header has 4")) {
            try LibraryImport.plan(data, format: .goodreads, file: "f.csv")
        }
    }

    @Test func aDryRunWritesNothing() throws {
        let store = try ShelfStore.inMemory()
        let report = try importFile(Self.goodreads, into: store, dryRun: true)
        #expect(report.added == 215 + 107)
        #expect(try count(.books, in: store) == 0)
        #expect(try store.pendingCount() == 0)
    }

    @Test func aLocalEditIsUpdatedFromTheFileAndOtherFieldsStay() throws {
        let store = try ShelfStore.inMemory()
        _ = try importFile(Self.goodreads, into: store)
        _ = try store.write { tx in
            try tx.saveLocal(.books, id: "gr-1014", json: Data(#"{"id":"gr-1014","title":"Dune!","author_name":"Frank Herbert","finished":false,"isbn":"x","shelf_note":"mine"}"#.utf8))
        }
        let again = try importFile(Self.goodreads, into: store)
        #expect(again.collections["books"]?.updated == 1)
        let dune = try Wire.fields(try store.record(.books, id: "gr-1014"))
        #expect(dune["title"] as? String == "Dune")
        #expect(dune["shelf_note"] as? String == "mine")
    }

    // MARK: Calibre

    @Test func aCalibreListImportsBooksWithAuthorsJoined() throws {
        let store = try ShelfStore.inMemory()
        let report = try importFile("import/calibre_list.json", into: store)

        #expect(report.format == .calibre)
        #expect(report.rows == 7)
        #expect(report.added == 5)
        #expect(report.issues.map(\.location) == ["entry 5", "entry 6"], "entry 4 has no authors: imported with none")
        #expect(report.skipped == 2)
        let omens = try Wire.fields(try store.record(.books, id: "cal-2b1c5f7e-9d0a-4a6b-8c3e-1f2a3b4c5d6e"))
        #expect(omens["author_name"] as? String == "Terry Pratchett & Neil Gaiman")
        #expect(omens["isbn"] as? String == "9780060853983")
        #expect(try Wire.fields(try store.record(.books, id: "cal-0a1b2c3d-4e5f-4a7b-8c9d-0e1f2a3b4c5d"))["finished"] as? Bool == true)
        #expect(try Wire.fields(try store.record(.books, id: "cal-12"))["title"] as? String == "羅生門, and other stories")

        let again = try importFile("import/calibre_list.json", into: store)
        #expect(again.added == 0 && again.unchanged == 5)
    }

    @Test func aCalibreFileThatIsNotAListIsMalformed() {
        #expect(throws: ImportError.self) {
            try LibraryImport.plan(Data(#"[{"title": "x"}, 3]"#.utf8), format: .calibre, file: "c.json")
        }
        #expect(throws: ImportError(.malformed, file: "c.json", reason: "entry 2: not a JSON object")) {
            try LibraryImport.plan(Data(#"[{"title": "x"}, 3]"#.utf8), format: .calibre, file: "c.json")
        }
    }

    // MARK: Shelf export

    @Test(arguments: [ShelfExport.Format.json, .csv])
    func anExportImportedIntoAFreshStoreHoldsTheSameRecords(format: ShelfExport.Format) throws {
        let store = try ShelfStore.inMemory()
        _ = try importFile(Self.goodreads, into: store)
        let preferences = SyncedPreferencesStore(store: store)
        try preferences.setFavorites(["gr-1000", "gr-1007"])
        try preferences.setReadingSettings(ReadingSettings(showFinished: false, dailyGoal: try DailyGoal(minutes: 45)))
        _ = try store.write { tx in
            try tx.saveLocal(.sessions, id: "s-1", json: Data(#"{"id":"s-1","minutes":25,"day":"2026-12-01","book_id":"gr-1000"}"#.utf8))
            try tx.saveLocal(.tasks, id: "t-1", json: Data(#"{"id":"t-1","title":"Réread, slowly","done":false,"extra":{"kept":[1,2]}}"#.utf8))
        }

        let (data, summary) = try ShelfExport.export(ShelfExport.defaultCollections, from: store, format: format)
        #expect(summary.records == 215 + 107 + 1 + 1 + 1)
        #expect(ImportFormat.guess(data) == .shelf)

        let fresh = try ShelfStore.inMemory()
        let report = try LibraryImport.apply(try LibraryImport.plan(data, format: nil, file: "export"), to: fresh, file: "export", dryRun: false)
        #expect(report.added == summary.records)
        #expect(report.issues.isEmpty)
        for collection in ShelfExport.defaultCollections {
            let before = try store.records(RecordQuery(collection)).map { try Self.content($0) }
            let after = try fresh.records(RecordQuery(collection)).map { try Self.content($0) }
            #expect(before == after, "\(collection)")
        }
        #expect(try SyncedPreferencesStore(store: fresh).preferences() == preferences.preferences())
    }

    @Test func anExportOfANewerVersionIsRefused() {
        let data = Data(#"{"format": "shelf-export", "version": 2, "collections": {}}"#.utf8)
        #expect(throws: ImportError.self) { try LibraryImport.plan(data, format: nil, file: "e.json") }
    }

    @Test func syncBookkeepingInAnExportIsNotImported() throws {
        let data = Data(#"{"format": "shelf-export", "version": 1, "collections": {"books": [{"id": "b-1", "title": "Dune", "author_name": "Frank Herbert", "finished": false, "last_modified": 12, "_shelf_revs": ["r-1"]}]}}"#.utf8)
        let store = try ShelfStore.inMemory()
        _ = try LibraryImport.apply(try LibraryImport.plan(data, format: nil, file: "e.json"), to: store, file: "e.json", dryRun: false)
        let fields = try Wire.fields(try store.record(.books, id: "b-1"))
        #expect(fields["last_modified"] == nil && fields[RecordLineage.field] == nil)
        #expect(fields["title"] as? String == "Dune")
    }

    /// A record's content without the server's bookkeeping.
    static func content(_ record: StoredRecord) throws -> JSONValue {
        var fields = try #require(try JSONDecoder().decode(JSONValue.self, from: record.json).objectValue)
        fields.removeValue(forKey: "last_modified")
        fields.removeValue(forKey: RecordLineage.field)
        return .object(fields)
    }
}
