import Foundation
@testable import Records
import Testing
import TestSupport
import Vocabulary

@Suite("Reading wire fields")
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
        #expect(throws: JSONScanError.self) { try WireFields.parse(Data(text.utf8)) }
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

    @Test func escapedNamesAreRecognised() throws {
        let fields = try WireFields.parse(Data(#"{"t\u0069tle":"First","\u0069d":"b1"}"#.utf8), keeping: names)
        #expect(fields.string("title") == "First")
        #expect(fields.string("id") == "b1")
        #expect(fields.members.count == 2)
    }

    /// Readers disagree on which of two members of one name counts (`JSONDecoder` keeps
    /// the first, a dictionary the last), so such an object is refused, escaped or not,
    /// kept or skipped, at any depth.
    @Test(arguments: [
        #"{"title":"First","title":"Second"}"#, #"{"t\u0069tle":"First","title":"Second"}"#,
        #"{"skipped":1,"skipped":2}"#, #"{"id":"b1","nested":{"a":1,"\u0061":2}}"#, #"{"list":[{"x":1,"x":1}]}"#,
    ])
    func aMemberNamedTwiceIsRefused(_ text: String) {
        #expect(throws: JSONScanError.self) { try WireFields.parse(Data(text.utf8), keeping: names) }
        #expect(throws: WireJSONError.self) { try WireJSON.fields(Data(text.utf8)) }
    }

    /// Objects of many members switch to a hashed set of names: the rule holds there too.
    @Test func aMemberNamedTwiceInALargeObjectIsRefused() throws {
        let members = (0 ..< 200).map { "\"m\($0)\":\($0)" }
        let unique = "{" + members.joined(separator: ",") + "}"
        #expect(try WireJSON.fields(Data(unique.utf8)).count == 200)
        let doubled = "{" + (members + ["\"m\\u0031\":1"]).joined(separator: ",") + "}"
        #expect(throws: WireJSONError.self) { try WireJSON.fields(Data(doubled.utf8)) }
    }

    @Test(arguments: [
        #"{"skipped":"\x"}"#, #"{"skipped":"\ud83d"}"#, #"{"skipped":1.}"#, #"{"skipped":-}"#, #"{"skipped":tru}"#,
        "{\"skipped\":\"line\nbreak\"}", #"{"skipped":"unterminated}"#, #"{"skipped":[1,}"#, #"{"title":"x","skipped":}"#,
    ])
    func skippedMembersAreStillChecked(_ text: String) {
        #expect(throws: JSONScanError.self) { try WireFields.parse(Data(text.utf8), keeping: names) }
    }
}
