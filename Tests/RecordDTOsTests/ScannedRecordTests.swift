import Domain
import Foundation
import RecordDTOs
import Testing
import TestSupport

@Suite("Records read by the byte scanner instead of JSONDecoder")
struct ScannedRecordTests {
    private func decoded(_ text: String) -> BookDTO? {
        try? JSONDecoder().decode(BookDTO.self, from: Data(text.utf8))
    }

    private func scanned(_ text: String) -> BookDTO? {
        BookDTO.scanned(from: Data(text.utf8))
    }

    // MARK: What the scanner reads

    @Test(arguments: [
        #"{"id":"b1","title":"Dune","author_name":"Frank Herbert","finished":false,"last_modified":1700000000123}"#,
        #" { "finished" : true , "author_name":"Zo\u00EB \"Z\"","title":"Caf\u00e9 \ud83d\udcda","id":"b-2" } "#,
        #"{"id":"b3","title":"T","author_name":"A","finished":false,"last_modified":null,"tags":["x",{"y":[1,2]}],"meta":{"title":"nested"}}"#,
        #"{"\u0069d":"b4","t\u0069tle":"Escaped names","author_name":"A","finished":true,"description":"line\nbreak \u00e9"}"#,
        #"{"id":"b5","title":"  ","author_name":"A","finished":false,"last_modified":-0}"#,
    ])
    func commonRecordsAreScannedAsTheDecoderReadsThem(_ text: String) throws {
        let fromScanner = try #require(scanned(text))
        #expect(fromScanner == decoded(text))
    }

    @Test func everySeedBookIsScannedAsTheDecoderReadsIt() throws {
        let array = try #require(try JSONSerialization.jsonObject(with: FixtureFiles.data("seed/books.json")) as? [[String: Any]])
        #expect(!array.isEmpty)
        for object in array {
            let json = try JSONSerialization.data(withJSONObject: object)
            let fromScanner = try #require(BookDTO.scanned(from: json))
            #expect(fromScanner == (try JSONDecoder().decode(BookDTO.self, from: json)))
        }
    }

    // MARK: What it leaves to the decoder

    @Test(arguments: [
        // JSONDecoder keeps the first of repeated names, WireFields the last: never guessed.
        #"{"id":"b1","title":"First","title":"Second","author_name":"A","finished":false}"#,
        #"{"id":"b1","t\u0069tle":"First","title":"Second","author_name":"A","finished":false}"#,
        // Integers JSONDecoder reads from other spellings.
        #"{"id":"b1","title":"T","author_name":"A","finished":false,"last_modified":1e3}"#,
        #"{"id":"b1","title":"T","author_name":"A","finished":false,"last_modified":1.0}"#,
        // A lone surrogate where JSONDecoder does not look (it accepts it, the scanner does not).
        #"{"id":"b1","title":"T","author_name":"A","finished":false,"note":"\ud800"}"#,
    ])
    func recordsTheScannerCannotVouchForAreLeftToTheDecoder(_ text: String) {
        #expect(scanned(text) == nil)
        #expect(decoded(text) != nil)
    }

    @Test(arguments: [
        #"{"title":"T","author_name":"A","finished":false}"#,
        #"{"id":"b1","author_name":"A","finished":false}"#,
        #"{"id":"b1","title":"T","finished":false}"#,
        #"{"id":"b1","title":"T","author_name":"A"}"#,
        #"{"id":7,"title":"T","author_name":"A","finished":false}"#,
        #"{"id":"b1","title":null,"author_name":"A","finished":false}"#,
        #"{"id":"b1","title":"T","author_name":"A","finished":0}"#,
        #"{"id":"b1","title":"T","author_name":"A","finished":"false"}"#,
        #"{"id":"b1","title":"T","author_name":"A","finished":false,"last_modified":"1"}"#,
        #"{"id":"b1","title":"T","author_name":"A","finished":false,"last_modified":1.5}"#,
        #"{"id":"b1","title":"T","author_name":"A","finished":false,"last_modified":99999999999999999999}"#,
        #"{"id":"b1","title":"T\ud800","author_name":"A","finished":false}"#,
        #"{"id":"b1","title":"T","author_name":"A","finished":false} trailing"#,
        #"["id","b1"]"#,
        "",
    ])
    func recordsTheDecoderRefusesAreNeverScanned(_ text: String) {
        #expect(decoded(text) == nil)
        #expect(scanned(text) == nil)
    }

    @Test func shapesWithoutAScannerAlwaysGoToTheDecoder() {
        let note = #"{"id":"n1","title":"T","body":"","book_id":null,"last_modified":1}"#
        #expect(NoteDTO.scanned(from: Data(note.utf8)) == nil)
    }
}
