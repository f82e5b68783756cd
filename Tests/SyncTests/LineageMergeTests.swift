import Domain
import Foundation
import Records
import Storage
import Testing
@testable import Sync

/// How a write in flight merges with a server record that carries a lineage: a record
/// listing the write's revision id descends from it (the write was applied), so what
/// was sent is the base; a record without the id — or without any lineage — merges as
/// before. The same rules hold for a pulled record and a 412's existing record: both
/// go through `MergeApplier.apply`.
@Suite("Merging with a write's lineage")
struct LineageMergeTests {
    // MARK: Fixture

    private static func json(_ fields: [String: JSONValue]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(fields)
    }

    private static func book(
        title: String, author: String = "Frank Herbert", lineage: [String]? = nil, lastModified: Int64? = nil
    ) throws -> Data {
        var fields: [String: JSONValue] = ["id": .string("b1"), "title": .string(title), "author_name": .string(author), "finished": .bool(false)]
        if let lastModified { fields["last_modified"] = .number(Double(lastModified)) }
        if let lineage { fields[RecordLineage.field] = .array(lineage.map(JSONValue.string)) }
        return try json(fields)
    }

    private static func remote(title: String, author: String = "Frank Herbert", lineage: [String]?, lastModified: Int64) throws -> RawRecord {
        RawRecord(id: "b1", lastModified: lastModified, json: try book(title: title, author: author, lineage: lineage, lastModified: lastModified))
    }

    /// A synced book (title X, lineage [x0]) whose title change to Y was sent and whose
    /// answer never came. - Returns: the store and the write's revision id.
    private func titleChangeInFlight() throws -> (ShelfStore, String) {
        let store = try ShelfStore.inMemory()
        try store.write { tx in
            _ = try SyncRules(tx).applyPulled(try Self.remote(title: "X", lineage: ["x0"], lastModified: 100), to: .books)
        }
        let sent = try store.write { tx in
            let entry = try tx.saveLocal(.books, id: "b1", json: try Self.book(title: "Y", lineage: ["x0"]))
            return try #require(try SyncRules(tx).markSent(entry, body: try PushBody.of(Self.book(title: "Y"), collection: .books, id: "b1")))
        }
        return (store, try #require(sent.sentLineageID))
    }

    private func merge(_ store: ShelfStore, remote: RawRecord, policy: ConflictPolicy = .manual) throws -> MergeApplier.Result {
        try store.write { tx in try MergeApplier(policy: policy, now: Date()).apply(.books, id: "b1", remote: remote, in: tx) }
    }

    private func title(_ store: ShelfStore) throws -> JSONValue? {
        let row = try #require(try store.read { try $0.record(.books, id: "b1") })
        return try JSONDecoder().decode([String: JSONValue].self, from: row.json)["title"]
    }

    // MARK: Descendants

    @Test func aRecordListingTheWriteInFlightTakesTheOtherDevicesLaterChange() throws {
        let (store, revision) = try titleChangeInFlight()
        // GIVEN the server's record (a 412's existing, or a pull) descends from the write
        let existing = try Self.remote(title: "Z", lineage: ["x0", revision, "b-1"], lastModified: 300)

        let result = try merge(store, remote: existing)

        // THEN Z stands, no conflict, nothing left to push
        #expect(result == .tookRemote(discarded: nil))
        #expect(try title(store) == .string("Z"))
        #expect(try store.pendingCount() == 0)
        #expect(try store.read { try $0.conflictCount() } == 0)
    }

    @Test func aFieldChangedHereAfterSendingStillMergesThreeWays() throws {
        let (store, revision) = try titleChangeInFlight()
        _ = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: try Self.book(title: "Y", author: "F. Herbert", lineage: ["x0"])) }
        let existing = try Self.remote(title: "Z", lineage: [revision, "b-1"], lastModified: 300)

        let result = try merge(store, remote: existing)

        // THEN Z for the title (only the other device changed it since Y), the later
        // author for the author, queued against the server's version
        #expect(result == .merged(discarded: nil))
        let fields = try JSONDecoder().decode(
            [String: JSONValue].self, from: try #require(try store.read { try $0.record(.books, id: "b1") }).json)
        #expect(fields["title"] == .string("Z") && fields["author_name"] == .string("F. Herbert"))
        let entry = try #require(try store.read { try $0.outboxEntry(.books, id: "b1") })
        #expect(entry.kind == .update && entry.baseLastModified == 300 && !entry.isInFlight)
    }

    @Test func theSameFieldChangedOnBothSidesAfterTheWriteIsStillAConflict() throws {
        let (store, revision) = try titleChangeInFlight()
        _ = try store.write { tx in try tx.saveLocal(.books, id: "b1", json: try Self.book(title: "W", lineage: ["x0"])) }
        let existing = try Self.remote(title: "Z", lineage: [revision, "b-1"], lastModified: 300)

        #expect(try merge(store, remote: existing) == .conflict(MergeConflict(kind: .fields, fields: ["title"])))
    }

    // MARK: Without the write's id

    @Test func aRecordWithoutLineageMergesAsBefore() throws {
        let (store, _) = try titleChangeInFlight()
        // Another client's write: no lineage at all. A cannot tell whether Z came after Y.
        let existing = try Self.remote(title: "Z", lineage: nil, lastModified: 300)

        #expect(try merge(store, remote: existing) == .conflict(MergeConflict(kind: .fields, fields: ["title"])))
        #expect(try title(store) == .string("Y"), "the local edit is kept for resolve")
    }

    @Test func aLineageWithoutTheWritesIDMergesAsBefore() throws {
        let (store, _) = try titleChangeInFlight()
        let existing = try Self.remote(title: "Z", lineage: ["x0", "b-1"], lastModified: 300)
        #expect(try merge(store, remote: existing) == .conflict(MergeConflict(kind: .fields, fields: ["title"])))
    }

    @Test func theEchoOfTheWriteIsStillAnAcknowledgement() throws {
        let (store, revision) = try titleChangeInFlight()
        let echo = try Self.remote(title: "Y", lineage: ["x0", revision], lastModified: 200)
        #expect(try merge(store, remote: echo) == .acknowledged)
        #expect(try store.pendingCount() == 0)
    }

    // MARK: The reserved field

    @Test func theLineageIsNeverAChange() {
        let base: [String: JSONValue] = ["title": .string("X"), RecordLineage.field: .array([.string("a")])]
        let local: [String: JSONValue] = ["title": .string("X"), RecordLineage.field: .array([.string("a"), .string("c")])]
        let remote: [String: JSONValue] = ["title": .string("X"), RecordLineage.field: .array([.string("a"), .string("b")])]
        #expect(ThreeWayMerge.merge(base: base, local: local, remote: remote, policy: .manual) == .alreadyEqual)
        let edited = local.merging(["title": .string("Y")]) { $1 }
        #expect(ThreeWayMerge.merge(base: base, local: edited, remote: remote, policy: .manual) == .push(["title": .string("Y")]),
                "a merged record gets its lineage when pushed, not from the merge")
    }
}
