import Foundation
@testable import Records
import Testing
import TestSupport
import Vocabulary

@Suite("Derived columns and folding")
struct RecordIndexingTests {
    private func json(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object)
    }

    // MARK: - Derived columns

    @Test func derivedColumnsFoldEachFieldAsDomainDoes() throws {
        let separator = SearchText.fieldSeparator
        let book = RecordIndexing(collection: .books, fields: try WireFields.parse(try json(["id": "b1", "title": "L'Étranger", "author_name": "Albert CAMUS", "finished": true])))
        #expect(book.searchText == SearchFolding.fold("L'Étranger") + separator + SearchFolding.fold("Albert CAMUS"))
        #expect(book.sortKey == book.searchText)
        #expect(book.complete == true)

        let body = String(repeating: "Ü", count: 100)
        let note = RecordIndexing(collection: .notes, fields: try WireFields.parse(try json(["id": "n1", "title": "Café", "body": body, "book_id": NSNull()])))
        #expect(note.searchText == "cafe" + separator + String(repeating: "u", count: 100))
        #expect(note.sortKey == "cafe" + separator + String(repeating: "u", count: RecordIndexing.bodySortPrefix))
        #expect(note.complete == nil)

        let task = RecordIndexing(collection: .tasks, fields: try WireFields.parse(try json(["id": "t1", "title": "Ünï", "done": false])))
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
