import Domain
import Foundation
import RecordDTOs
import Records
import Testing

@Suite("Optional wire fields written as null")
struct WrittenAsNullTests {
    @Test func aSessionOfNoBookWritesItsBookIDAsNull() throws {
        let dto = ReadingSessionDTO(id: "s1", minutes: 25, day: "2026-03-01", bookID: nil)
        let fields = try WireJSON.fields(try dto.encodedData())
        #expect(fields == ["id": .string("s1"), "minutes": .number(25), "day": .string("2026-03-01"), "book_id": .null])
    }

    @Test(arguments: [
        (#"{"id":"s1","minutes":25,"day":"2026-03-01"}"#, nil),
        (#"{"id":"s1","minutes":25,"day":"2026-03-01","book_id":null}"#, nil),
        (#"{"id":"s1","minutes":25,"day":"2026-03-01","book_id":"b1"}"#, "b1"),
    ] as [(String, String?)])
    func anAbsentOrNullBookIDReadsAsNone(_ json: String, _ bookID: String?) throws {
        let dto = try JSONDecoder().decode(ReadingSessionDTO.self, from: Data(json.utf8))
        #expect(dto.bookID == bookID)
        #expect(dto.minutes == 25)
    }

    @Test func aWrongTypeIsStillRefused() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ReadingSessionDTO.self, from: Data(#"{"id":"s1","minutes":25,"day":"2026-03-01","book_id":7}"#.utf8))
        }
    }
}
