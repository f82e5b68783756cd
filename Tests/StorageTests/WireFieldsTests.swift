import Domain
import Foundation
import Testing
@testable import Storage
import TestSupport

@Suite("Reading wire fields and folding")
struct WireFieldsTests {
    private func parse(_ text: String) throws -> WireFields {
        try WireFields.parse(Data(text.utf8))
    }

    @Test func topLevelScalarsAreRead() throws {
        let fields = try parse(#" { "id" : "b1", "finished": true, "done" :false, "quantity": 3, "price": 12.5, "book_id": null, "last_modified": 1700000000123 } "#)
        #expect(fields.string("id") == "b1")
        #expect(fields.bool("finished") == true)
        #expect(fields.bool("done") == false)
        #expect(fields.integer("quantity") == 3)
        #expect(fields["price"] == .real(12.5))
        #expect(fields["book_id"] == .null)
        #expect(fields.integer("last_modified") == 1_700_000_000_123)
        #expect(fields.string("missing") == nil)
    }

    @Test func escapesAndSurrogatePairsAreDecoded() throws {
        let fields = try parse(#"{"title":"Caf\u00e9 \"quoted\" \\ \/ \n\t \ud83d\udcda","author_name":"Zo\u00EB"}"#)
        #expect(fields.string("title") == "Café \"quoted\" \\ / \n\t 📚")
        #expect(fields.string("author_name") == "Zoë")
    }

    @Test func rawUTF8IsKept() throws {
        #expect(try parse(#"{"title":"Stanisław Lem — Solaris"}"#).string("title") == "Stanisław Lem — Solaris")
    }

    @Test func nestedValuesAreSkippedWithTheirBrackets() throws {
        let fields = try parse(#"{"tags":["a]", {"b": "}"}], "meta": {"x": [1, {"y": "\"]"}]}, "title": "After"}"#)
        #expect(fields["tags"] == .nested)
        #expect(fields["meta"] == .nested)
        #expect(fields.string("title") == "After")
    }

    @Test(arguments: [
        "", "[]", "\"text\"", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":tru}", "{\"a\":\"x}",
        "{\"a\":\"\\x\"}", "{\"a\":\"\\ud83d\"}", "{\"a\":\"\\udcda\"}", "{\"a\":1} extra", "{\"a\":-}", "{\"a\":1.}",
        "{\"a\":\"line\nbreak\"}",
    ])
    func malformedObjectsAreRejected(_ text: String) {
        #expect(throws: WireFields.SyntaxError.self) { try WireFields.parse(Data(text.utf8)) }
    }

    @Test func everySeedRecordParsesLikeFoundationDoes() throws {
        for name in ["books", "notes", "tasks", "cart", "products"] {
            let array = try #require(try JSONSerialization.jsonObject(with: FixtureFiles.data("seed/\(name).json")) as? [[String: Any]])
            for object in array {
                let json = try JSONSerialization.data(withJSONObject: object)
                let fields = try WireFields.parse(json)
                for (key, value) in object {
                    if let text = value as? String { #expect(fields.string(key) == text) }
                }
            }
        }
    }

    // MARK: - Derived columns

    @Test func derivedColumnsFoldEachFieldAsDomainDoes() throws {
        let separator = SearchText.fieldSeparator
        let book = RecordIndexing(collection: .books, fields: try WireFields.parse(Wire.book("b1", title: "L'Étranger", author: "Albert CAMUS", finished: true)))
        #expect(book.searchText == SearchFolding.fold("L'Étranger") + separator + SearchFolding.fold("Albert CAMUS"))
        #expect(book.sortKey == book.searchText)
        #expect(book.complete == true)

        let body = String(repeating: "Ü", count: 100)
        let note = RecordIndexing(collection: .notes, fields: try WireFields.parse(Wire.note("n1", title: "Café", body: body)))
        #expect(note.searchText == "cafe" + separator + String(repeating: "u", count: 100))
        #expect(note.sortKey == "cafe" + separator + String(repeating: "u", count: RecordIndexing.bodySortPrefix))
        #expect(note.complete == nil)

        let task = RecordIndexing(collection: .tasks, fields: try WireFields.parse(Wire.task("t1", title: "Ünï", done: false)))
        #expect(task.sortKey == "uni")
        #expect(task.complete == false)

        let missing = RecordIndexing(collection: .books, fields: try WireFields.parse(Data(#"{"id":"b2"}"#.utf8)))
        #expect(missing.sortKey == separator)
        #expect(missing.complete == nil)
    }

    // MARK: - Folding

    @Test func theASCIIShortcutAgreesWithDomainFolding() {
        let everyASCII = String(decoding: (0x01...0x7F).map { UInt8($0) }, as: UTF8.self)
        #expect(SearchText.fold(everyASCII) == SearchFolding.fold(everyASCII))
        for sample in ["Dune", "LE GUIN", "already lower", "MiXeD 123 !?", ""] {
            #expect(SearchText.fold(sample) == SearchFolding.fold(sample))
        }
    }

    @Test func nonASCIITextIsFoldedByDomain() {
        for sample in ["Café", "ÉMILE ZOLA", "Kapuściński", "Ｗｉｄｅ"] {
            #expect(SearchText.fold(sample) == SearchFolding.fold(sample))
        }
        #expect(SearchText.fold("Café") == "cafe")
    }
}

@Suite("Reading only the indexed members")
struct SelectiveWireFieldsTests {
    private let names = ["id", "title", "author_name", "finished"].map(WireFields.Name.init)

    @Test func onlyTheKeptMembersAreRead() throws {
        let json = Data(#"{"id":"b1","description":"A \"long\" text \u00e9","title":"Dune","tags":["x",{"y":"]"}],"finished":true,"n":-1.5e3,"author_name":"Frank Herbert","z":null}"#.utf8)
        let fields = try WireFields.parse(json, keeping: names)
        #expect(fields.members.map(\.name) == ["id", "title", "finished", "author_name"])
        #expect(fields.string("title") == "Dune")
        #expect(fields.string("author_name") == "Frank Herbert")
        #expect(fields.bool("finished") == true)
        #expect(fields["description"] == nil)

        let all = try WireFields.parse(json)
        for name in ["id", "title", "finished", "author_name"] {
            #expect(fields[name] == all[name])
        }
    }

    @Test func escapedNamesAreRecognisedAndTheLastRepeatWins() throws {
        let fields = try WireFields.parse(Data(#"{"t\u0069tle":"First","title":"Second","\u0069d":"b1"}"#.utf8), keeping: names)
        #expect(fields.string("title") == "Second")
        #expect(fields.string("id") == "b1")
        #expect(fields.members.count == 2)
    }

    @Test(arguments: [
        #"{"skipped":"\x"}"#, #"{"skipped":"\ud83d"}"#, #"{"skipped":1.}"#, #"{"skipped":-}"#, #"{"skipped":tru}"#,
        "{\"skipped\":\"line\nbreak\"}", #"{"skipped":"unterminated}"#, #"{"skipped":[1,}"#, #"{"title":"x","skipped":}"#,
    ])
    func skippedMembersAreStillChecked(_ text: String) {
        #expect(throws: WireFields.SyntaxError.self) { try WireFields.parse(Data(text.utf8), keeping: names) }
    }

    @Test func theFolderAgreesWithFoldingEachTimeItRemembers() {
        var folder = SearchText.Folder()
        let samples = ["Émile Zola", "Dune", "ÉMILE ZOLA", "Kapuściński", "Émile Zola", "MiXeD ascii", "Ｗｉｄｅ", ""]
        for _ in 0..<2 {
            for sample in samples {
                var bytes: [UInt8] = []
                folder.append(sample, to: &bytes)
                #expect(String(decoding: bytes, as: UTF8.self) == SearchText.fold(sample), "\(sample)")
            }
        }
        // More distinct texts than it keeps: still right after it forgets.
        for index in 0..<(SearchText.Folder.capacity + 10) {
            var bytes: [UInt8] = []
            folder.append("Ünïcode \(index)", to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == "unicode \(index)")
        }
    }
}
