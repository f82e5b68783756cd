import Foundation
import Records
import Services
import Testing
import TestSupport

@Suite("Record page scanner")
struct RecordPageScannerTests {
    // MARK: Real pages

    @Test func readsARecordedPageInServerOrder() throws {
        let body = try RecordedResponses.body("books-page-1")
        let records = try RecordPageScanner.scan(body)
        #expect(records.map(\.id) == ["book-001", "book-002"])
        #expect(records.allSatisfy { !$0.isDeleted && $0.lastModified > 1_700_000_000_000 })
        #expect(records[0].lastModified < records[1].lastModified)
    }

    @Test func recordBytesAreTheServersOwnBytes() throws {
        let body = try RecordedResponses.body("books-page-1")
        let records = try RecordPageScanner.scan(body)
        let text = String(decoding: body, as: UTF8.self)
        for record in records {
            let bytes = String(decoding: record.json, as: UTF8.self)
            #expect(bytes.hasPrefix("{") && bytes.hasSuffix("}"))
            #expect(text.contains(bytes))
        }
        // Non-ASCII stays escaped exactly as Kinto sent it.
        #expect(String(decoding: records[1].json, as: UTF8.self).contains(#"Cien a\u00F1os"#))
    }

    @Test func sinceListsCarryTombstones() throws {
        let records = try RecordPageScanner.scan(try RecordedResponses.body("books-since-tombstones"))
        #expect(records.map(\.id) == ["book-001", "book-004"])
        #expect(records.map(\.isDeleted) == [true, false])
        #expect(String(decoding: records[0].json, as: UTF8.self).contains(#""deleted":true"#))
    }

    @Test func everyRecordedPageScans() throws {
        for name in ["books-page-2", "books-page-3", "notes-page", "tasks-page", "cart-page", "products-page"] {
            let records = try RecordPageScanner.scan(try RecordedResponses.body(name))
            #expect(!records.isEmpty, "\(name)")
        }
    }

    // MARK: Escapes and nesting

    @Test func handlesEscapesNestingAndEscapedKeys() throws {
        let records = try RecordPageScanner.scan(try RecordedResponses.body("handmade-scanner-edge-cases-page"))
        // Nested `id`, `last_modified` and `deleted` belong to sub-objects, not the record.
        #expect(records.map(\.id) == ["book-10", "book-11", "book-12", "book-13"])
        #expect(records.map(\.lastModified) == [1796039015001, 1796039015002, 1796039015003, 1796039015004])
        #expect(records.map(\.isDeleted) == [false, false, true, false])
    }

    @Test func recordBytesDecodeToTheEscapedText() throws {
        let records = try RecordPageScanner.scan(try RecordedResponses.body("handmade-scanner-edge-cases-page"))
        let first = try records[0].fields()
        #expect(first["title"]?.stringValue == "Quotes \" and backslash \\ and slash / and controls \u{8}\u{C}\n\r\t")
        #expect(first["author_name"]?.stringValue == "Café — 📚 📚")
        #expect(first["nested"]?["deep"] != nil)
        let last = try records[3].fields()
        #expect(last["title"]?.stringValue == "Raw UTF-8 é 📚")
    }

    @Test func decodesEscapedIDs() throws {
        let body = Data(json: #"{"data":[{"id":"a\u00e9\ud83d\ude00\n\"x\\","last_modified":1}]}"#)
        #expect(try RecordPageScanner.scan(body).first?.id == "aé😀\n\"x\\")
    }

    @Test func acceptsAnEmptyPage() throws {
        #expect(try RecordPageScanner.scan(Data(json: #" { "data" : [ ] } "#)).isEmpty)
    }

    // MARK: Malformed input, with the byte offset

    @Test func rejectsARecordedTruncatedPage() throws {
        let body = try RecordedResponses.body("malformed-truncated-page")
        let error = #expect(throws: APIError.self) { try RecordPageScanner.scan(body) }
        let failure = try #require(error?.decodingFailure)
        #expect(failure.message == "unterminated string")
        // The cut falls inside the second record's title, whose quote opens here:
        let openingQuote = try #require(String(decoding: body, as: UTF8.self).range(of: #""Cien"#))
        #expect(failure.offset == String(decoding: body, as: UTF8.self).utf8.distance(
            from: String(decoding: body, as: UTF8.self).startIndex, to: openingQuote.lowerBound))
    }

    @Test(arguments: [
        // (input, offset, message fragment)
        (#"{"data":[{"id":"a","last_modified":1},]}"#, 38, "expected a record object"),
        (#"{"data":[{"id":"a","last_modified":1}"#, 37, "unexpected end of input inside an array"),
        (#"{"data":[{"id":"a\x","last_modified":1}]}"#, 17, #"invalid escape '\x'"#),
        (#"{"data":[{"id":"\uD83D","last_modified":1}]}"#, 16, "unpaired surrogate"),
        (#"{"data":[{"id":"\uDE00x","last_modified":1}]}"#, 16, "unpaired surrogate"),
        (#"{"data":[{"id":"\u12G4","last_modified":1}]}"#, 16, "four hex digits"),
        (#"{"data":[{"id":"a","last_modified":01}]}"#, 35, "leading zero"),
        (#"{"data":[{"id":"a","last_modified":1.5}]}"#, 35, "must be an integer"),
        (#"{"data":[{"id":"a","last_modified":99999999999999999999}]}"#, 35, "out of range"),
        (#"{"data":[{"id":7,"last_modified":1}]}"#, 15, "must be a string"),
        (#"{"data":[{"id":"a","last_modified":1,"deleted":"yes"}]}"#, 47, "must be true or false"),
        (#"{"data":[{"last_modified":1}]}"#, 9, "has no \"id\""),
        (#"{"data":[{"id":"a"}]}"#, 9, "has no \"last_modified\""),
        (#"{"data":[{"id":"a","last_modified":1,"x":tru}]}"#, 41, "expected 'true'"),
        (#"{"data":[{"id":"a","last_modified":1,"x":[1 2]}]}"#, 44, "expected ',' or ']'"),
        (#"{"data":[{"id":"a" "last_modified":1}]}"#, 19, "expected ',' or '}'"),
        (#"{"data":[]} x"#, 12, "after the JSON value"),
        (#"{"items":[]}"#, 0, "no \"data\" array"),
        (#"{"data":{}}"#, 8, "expected an array"),
        ("", 0, "empty"),
        ("{\"data\":[{\"id\":\"a\tb\",\"last_modified\":1}]}", 17, "control character"),
    ] as [(String, Int, String)])
    func rejectsMalformedInputAtItsOffset(input: String, offset: Int, message: String) throws {
        let error = #expect(throws: APIError.self) { try RecordPageScanner.scan(Data(json: input)) }
        let failure = try #require(error?.decodingFailure)
        #expect(failure.offset == offset, "\(failure)")
        #expect(failure.message.contains(message), "\(failure)")
        #expect(failure.description.contains("at byte \(offset)"))
    }

    @Test func rejectsInvalidUTF8() throws {
        var bytes = Data(json: #"{"data":[{"id":"a","last_modified":1,"t":""#)
        bytes.append(contentsOf: [0xC3, 0x28])  // a lead byte followed by a non-continuation byte
        bytes.append(contentsOf: Data(json: #""}]}"#))
        let error = #expect(throws: APIError.self) { try RecordPageScanner.scan(bytes) }
        #expect(error?.decodingFailure?.offset == 42)
        #expect(error?.decodingFailure?.message == "invalid UTF-8 sequence")
    }

    @Test func refusesHostileNesting() throws {
        let deep = String(repeating: "[", count: 10_000)
        let body = Data(json: #"{"data":[{"id":"a","last_modified":1,"x":"# + deep)
        let error = #expect(throws: APIError.self) { try RecordPageScanner.scan(body) }
        #expect(error?.decodingFailure?.message.contains("nesting deeper") == true)
    }

    // MARK: Duplicate ids

    @Test func rejectsAPageThatRepeatsAnID() throws {
        let body = try RecordedResponses.body("handmade-duplicate-ids-page")
        let error = #expect(throws: APIError.self) { try RecordPageScanner.scan(body) }
        let failure = try #require(error?.decodingFailure)
        #expect(failure.domainError == .duplicateIdentities(["book-001"]))
        #expect(failure.description.contains("book-001"))
    }

    // MARK: Single records

    @Test func readsOneRecordObject() throws {
        let record = try RawRecord(json: Data(json: #" {"id":"x","last_modified":5,"deleted":true} "#))
        #expect(record == RawRecord(id: "x", lastModified: 5, isDeleted: true, json: Data(json: #"{"id":"x","last_modified":5,"deleted":true}"#)))
        #expect(throws: APIError.self) { try RawRecord(json: Data(json: #"[{"id":"x","last_modified":5}]"#)) }
    }
}
