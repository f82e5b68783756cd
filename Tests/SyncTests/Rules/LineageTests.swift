import Domain
import Foundation
import Records
import Testing
@testable import Storage
@testable import Sync
import TestSupport

/// A write carries its lineage (`_shelf_revs`): the last revision ids, its own appended
/// to the list of the server version it was based on, made once when first sent. What a
/// sent body carries is decided on a value too (`SendingPlanTests`); here it is read back
/// from a store.
@Suite("Write lineage")
struct LineageTests {
    private static func ids(_ count: Int, prefix: String = "r") -> [String] {
        (0..<count).map { "\(prefix)\($0)" }
    }

    private static func lineage(of body: Data?) throws -> [String] {
        let fields = try JSONDecoder().decode([String: JSONValue].self, from: try #require(body))
        guard case .array(let values)? = fields[RecordLineage.field] else { return [] }
        return values.compactMap { if case .string(let id) = $0 { id } else { nil } }
    }

    private static func remoteBook(_ id: String, title: String, lineage: [String]?, lastModified: Int64) -> RawRecord {
        var fields: [String: Any?] = ["id": id, "title": title, "author_name": "Anon", "finished": false, "last_modified": lastModified]
        if let lineage { fields[RecordLineage.field] = lineage }
        return RawRecord(id: id, lastModified: lastModified, json: Wire.object(fields))
    }

    // MARK: - The list

    @Test func appendingKeepsTheLastSixteen() {
        let parents = Self.ids(20)
        let lineage = RecordLineage.appending("new", to: parents)
        #expect(lineage.count == RecordLineage.limit)
        #expect(lineage.last == "new")
        #expect(lineage.first == "r5")
        #expect(RecordLineage.appending("a", to: []) == ["a"])
        #expect(RecordLineage.appending("r1", to: ["r0", "r1", "r2"]) == ["r0", "r2", "r1"], "an id appears once")
    }

    @Test func aRecordWithoutALineageHasNone() {
        #expect(RecordLineage.ids(in: ["title": .string("Dune")]).isEmpty)
        let none: [String: JSONValue]? = nil
        #expect(RecordLineage.ids(in: none) == [])
        #expect(RecordLineage.ids(in: [RecordLineage.field: .string("r1")]).isEmpty, "not a list")
        #expect(RecordLineage.ids(in: Data("not json".utf8)).isEmpty)
        #expect(!RecordLineage.descends(["title": .string("Dune")], from: "r1"))
    }

    @Test func aLineageFromOutsideIsBounded() {
        let long = String(repeating: "x", count: RecordLineage.maximumIDLength + 1)
        let mixed: [JSONValue] = [.string("r0"), .number(7), .string(""), .string(long), .null, .string("r1")]
        #expect(RecordLineage.ids(in: [RecordLineage.field: .array(mixed)]) == ["r0", "r1"])
        let many = Self.ids(1000).map(JSONValue.string)
        let kept = RecordLineage.ids(in: [RecordLineage.field: .array(many)])
        #expect(kept == Array(Self.ids(1000).suffix(RecordLineage.limit)))
        #expect(!RecordLineage.descends([RecordLineage.field: .array(many)], from: "r0"), "only the last ones count")
        #expect(RecordLineage.descends([RecordLineage.field: .array(many)], from: "r999"))
    }

    @Test func newIDsAreRandomUUIDs() {
        let a = RecordLineage.newID(), b = RecordLineage.newID()
        #expect(a != b)
        #expect(UUID(uuidString: a) != nil)
    }

    // MARK: - Sending

    @Test func anUpdateSentCarriesTheBasesLineageAndANewID() throws {
        let store = try ShelfStore.testStore()
        try store.applyPulled([Self.remoteBook("b1", title: "Dune", lineage: ["x1", "x2"], lastModified: 100)], to: .books)
        let sent = try store.write { tx in
            let entry = try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune Messiah", author: "Anon"))
            return try #require(try SyncRules(tx).markSent(entry, body: Wire.book("b1", title: "Dune Messiah", author: "Anon")))
        }

        let id = try #require(sent.sentLineageID)
        #expect(try Self.lineage(of: sent.sentBody) == ["x1", "x2", id])
        // Kept in the outbox row: read back as sent.
        let stored = try #require(try store.read { try $0.outboxEntry(.books, id: "b1") })
        #expect(stored.sentLineageID == id && stored.sentBody == sent.sentBody)
        #expect(try store.outbox().first?.sentLineageID == id)
    }

    @Test func aRepeatSendsTheSameID() throws {
        let store = try ShelfStore.testStore()
        try store.applyPulled([Self.remoteBook("b1", title: "Dune", lineage: nil, lastModified: 100)], to: .books)
        let sent = try store.write { tx in
            let entry = try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune Messiah", author: "Anon"))
            return try #require(try SyncRules(tx).markSent(entry, body: Wire.book("b1", title: "Dune Messiah", author: "Anon")))
        }
        #expect(try Self.lineage(of: sent.sentBody) == [try #require(sent.sentLineageID)], "no lineage before: its own id alone")

        // WHEN the reader edits again and the push is repeated
        let edited = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Children of Dune", author: "Anon")) }
        let again = try store.write { tx in try SyncRules(tx).markSent(edited, body: Wire.book("b1", title: "Children of Dune", author: "Anon")) }

        // THEN the same request goes out: same id, same body
        #expect(again?.sentLineageID == sent.sentLineageID)
        #expect(again?.sentBody == sent.sentBody)

        // AND once acknowledged, the edit waiting behind it is a new write with a new id,
        // based on the lineage the server's record now carries
        let echo = RawRecord(id: "b1", lastModified: 200, json: try #require(sent.sentBody))
        try store.write { tx in try SyncRules(tx).acknowledgePush(sent, server: echo) }
        let next = try #require(try store.read { try $0.outboxEntry(.books, id: "b1") })
        #expect(!next.isInFlight && next.sentLineageID == nil)
        let resent = try #require(try store.write { tx in try SyncRules(tx).markSent(next, body: Wire.book("b1", title: "Children of Dune", author: "Anon")) })
        let newID = try #require(resent.sentLineageID)
        #expect(newID != sent.sentLineageID)
        #expect(try Self.lineage(of: resent.sentBody) == [try #require(sent.sentLineageID), newID])
    }

    @Test func aDeletionCarriesNoLineage() throws {
        let store = try ShelfStore.testStore()
        try store.applyPulled([Self.remoteBook("b1", title: "Dune", lineage: ["x1"], lastModified: 100)], to: .books)
        let sent = try store.write { tx in
            let entry = try #require(try tx.deleteLocal(.books, id: "b1"))
            return try #require(try SyncRules(tx).markSent(entry, body: nil))
        }
        #expect(sent.isInFlight && sent.sentBody == nil && sent.sentLineageID == nil)
    }

    @Test func aBodyThatIsNotAnObjectIsRefused() {
        #expect(throws: StorageError.self) {
            try PushBody.stamping(Data("[1]".utf8), lineage: ["r1"], collection: .books, id: "b1")
        }
    }
}
