import Foundation
@testable import Records
import Testing
import Vocabulary

/// A pulled page's records carry the members their store columns need, read while the
/// page scanner finds each record: they must be exactly what reading the record again
/// would give.
@Suite("Indexed members read with the page")
struct IndexedFieldsTests {
    private static let page = Data(#"""
        {"data": [
          {"id":"b1","title":"Caf\u00e9 \"quoted\"","author_name":"Zo\u00EB","finished":true,"last_modified":10,"tags":["x",{"title":"nested"}]},
          {"last_modified":11,"\u0074itle":"Escaped name","id":"b2","finished":false,"author_name":null},
          {"id":"b3","title":"Second","description":"long text","last_modified":12},
          {"id":"b4","last_modified":13,"deleted":true},
          {"id":"b5","title":12.5,"author_name":["not","text"],"finished":"yes","last_modified":14}
        ]}
        """#.utf8)

    private static func value(_ fields: WireFields, _ name: String) -> WireFields.Value? { fields[name] }

    @Test(arguments: CollectionName.allCases)
    func theScannedMembersAreTheMembersReadAgain(_ collection: CollectionName) throws {
        let records = try RecordListScanner.records(in: Self.page, maximumRecords: 10, indexingFor: collection)
        #expect(records.count == 5)
        let names = RecordIndexing.wireNames(for: collection)
        for record in records {
            let scanned = try #require(record.indexedFields)
            #expect(scanned.collection == collection)
            let again = try WireFields.parse(record.json, keeping: names)
            #expect(scanned.fields.members.map(\.name).sorted() == again.members.map(\.name).sorted())
            for name in names {
                #expect(scanned.fields[name.text] == again[name.text], "\(record.id).\(name.text)")
            }
        }
    }

    /// A page's records share its bytes; read from a body that is itself a slice of a
    /// larger buffer (its first index not 0), each is still exactly its own bytes.
    @Test func eachRecordIsItsOwnBytesOfThePage() throws {
        let padded = Data("garbage before".utf8) + Self.page + Data("after".utf8)
        let body = padded[14..<(14 + Self.page.count)]
        #expect(body.startIndex == 14)
        let records = try RecordListScanner.records(in: body, maximumRecords: 10)
        let text = String(decoding: Self.page, as: UTF8.self)
        for record in records {
            let json = String(decoding: record.json, as: UTF8.self)
            #expect(json.hasPrefix("{") && json.hasSuffix("}"), "\(json)")
            #expect(text.contains(json), "\(record.id)")
            _ = try WireFields.parse(record.json)  // a whole object on its own
        }
        #expect(records.map { String(decoding: $0.json, as: UTF8.self) }.first?.hasPrefix(#"{"id":"b1""#) == true)
        #expect(records.last.map { String(decoding: $0.json, as: UTF8.self) } == #"{"id":"b5","title":12.5,"author_name":["not","text"],"finished":"yes","last_modified":14}"#)
    }

    @Test func theMembersSayWhatTheRecordSays() throws {
        let records = try RecordListScanner.records(in: Self.page, maximumRecords: 10, indexingFor: .books)
        let fields = try records.map { try #require($0.indexedFields).fields }
        #expect(fields[0].string("title") == "Café \"quoted\"")
        #expect(fields[0].string("author_name") == "Zoë")
        #expect(fields[0].bool("finished") == true)
        #expect(fields[1].string("title") == "Escaped name")
        #expect(fields[1]["author_name"] == .null)
        #expect(fields[2].string("title") == "Second")
        #expect(fields[2]["description"] == nil)  // not a books column: not kept
        #expect(fields[3].members.map(\.name) == ["id"])
        #expect(fields[4]["title"] == .real(12.5))
        #expect(fields[4]["author_name"] == .nested)
        #expect(fields[4]["finished"] == .string("yes"))
        #expect(fields.map { $0.string("id") } == ["b1", "b2", "b3", "b4", "b5"])
    }

    /// A page with one record that names a member twice is refused whole: the id a
    /// record is stored under must be the id every reader of its bytes sees.
    @Test func aPageWithARecordNamingAMemberTwiceIsRefused() {
        let page = Data(#"{"data":[{"id":"b1","last_modified":1},{"id":"b2","id":"b3","last_modified":2}]}"#.utf8)
        #expect(throws: JSONScanError.self) { try RecordListScanner.records(in: page, maximumRecords: 10) }
    }

    @Test func withoutACollectionNothingIsKept() throws {
        let records = try RecordListScanner.records(in: Self.page, maximumRecords: 10)
        #expect(records.allSatisfy { $0.indexedFields == nil })
    }

    @Test func theMembersTakeNoPartInEqualityAndGoWithOtherBytes() throws {
        let scanned = try RecordListScanner.records(in: Self.page, maximumRecords: 10, indexingFor: .books)
        let plain = try RecordListScanner.records(in: Self.page, maximumRecords: 10)
        #expect(scanned == plain)
        #expect(Set(scanned) == Set(plain))

        var changed = scanned[0]
        changed.json = Data(#"{"id":"b1","title":"Other","last_modified":10}"#.utf8)
        #expect(changed.indexedFields == nil)
    }

    @Test func garbageInAKeptMemberIsRefusedLikeAnyOther() {
        let broken = Data(#"{"data":[{"id":"b1","title":"unterminated,"last_modified":1}]}"#.utf8)
        #expect(throws: JSONScanError.self) {
            try RecordListScanner.records(in: broken, maximumRecords: 10, indexingFor: .books)
        }
        let badNumber = Data(#"{"data":[{"id":"b1","finished":01,"last_modified":1}]}"#.utf8)
        #expect(throws: JSONScanError.self) {
            try RecordListScanner.records(in: badNumber, maximumRecords: 10, indexingFor: .books)
        }
    }
}
