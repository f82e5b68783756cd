import Domain
import Foundation
import Services
import Storage
import Sync
import TestSupport
import Testing

/// Kinto checks `If-Match` without a lock: two devices updating one record at once
/// against the same version can both be answered 200, the later write replacing the
/// earlier unseen. Here the later write is played by writing the record straight into a
/// real Kinto, as another Shelf would have: the version both started from, one field
/// changed, its lineage that version's plus a new id.
@Suite("An acknowledged write another device replaced unseen (real Kinto)")
struct OverwrittenWriteSyncTests {
    let server: KintoServer
    let user: TestUser

    init() async throws {
        server = try KintoServer.shared()
        user = try await server.newUser(prefix: "overwritten")
    }

    /// Writes `fields` over b1 on the server without `If-Match`, as the racing device's
    /// write landed, with `lineage` as its `_shelf_revs`.
    private func raceWrite(_ device: SyncDevice, _ fields: [String: JSONValue], lineage: [String]) async throws {
        var body = fields
        body.removeValue(forKey: "last_modified")
        body["_shelf_revs"] = .array(lineage.map(JSONValue.string))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        _ = try await KintoCollectionService(client: device.client, collection: .books)
            .update(id: "b1", data: try encoder.encode(body), ifMatch: nil)
    }

    private func lineage(_ fields: [String: JSONValue]) -> [String] {
        guard case .array(let values)? = fields["_shelf_revs"] else { return [] }
        return values.compactMap(\.stringValue)
    }

    @Test func itIsQueuedAgainAndMergedWithTheOtherDevicesChange() async throws {
        // GIVEN b1 synced, then this device's change of its author acknowledged
        let device = try SyncDevice(user: user, server: server)
        try device.saveBook("b1", title: "Dune")
        #expect(await device.sync().outcome == .synced)
        let original = try await device.serverBook("b1")
        try device.editBook("b1") { $0["author_name"] = .string("F. Herbert") }
        #expect(await device.sync().collections["books"]?.pushed == 1)

        // WHEN another device's write, based on the original and changing the title,
        // replaces it on the server
        var other = original
        other["title"] = .string("Dune Messiah")
        try await raceWrite(device, other, lineage: lineage(original) + ["other-write"])

        // THEN the next sync merges this device's change again and pushes it
        let report = await device.sync()
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(report.collections["books"]?.overwritten == 1)
        #expect(report.collections["books"]?.pushed == 1)
        let merged = try await device.serverBook("b1")
        #expect(merged["title"] == .string("Dune Messiah"))
        #expect(merged["author_name"] == .string("F. Herbert"))
        #expect(try device.title("b1") == "Dune Messiah")
        #expect(try device.store.pendingCount() == 0)
        let quiet = await device.sync()
        #expect(quiet.collections["books"]?.pushed == 0)
        #expect(quiet.collections["books"]?.overwritten == 0)
    }

    @Test func aWriteThatSawItStands() async throws {
        // GIVEN this device's change of b1's author acknowledged
        let device = try SyncDevice(user: user, server: server)
        try device.saveBook("b1", title: "Dune")
        #expect(await device.sync().outcome == .synced)
        try device.editBook("b1") { $0["author_name"] = .string("F. Herbert") }
        _ = await device.sync()
        let acknowledged = try await device.serverBook("b1")

        // WHEN another device, which saw that change, sets the author back
        var other = acknowledged
        other["author_name"] = .string("Frank Herbert")
        try await raceWrite(device, other, lineage: lineage(acknowledged) + ["later-write"])

        // THEN its change stands here too: nothing is queued again
        let report = await device.sync()
        #expect(report.collections["books"]?.overwritten == 0)
        #expect(report.collections["books"]?.pushed == 0)
        #expect(try device.bookFields("b1")?["author_name"] == .string("Frank Herbert"))
    }

    @Test func bothDevicesChangingOneFieldIsAConflictNotALoss() async throws {
        // GIVEN this device's change of b1's title acknowledged
        let device = try SyncDevice(user: user, server: server)
        try device.saveBook("b1", title: "Dune")
        #expect(await device.sync().outcome == .synced)
        let original = try await device.serverBook("b1")
        try device.editBook("b1") { $0["title"] = .string("Dune (mine)") }
        _ = await device.sync()

        // WHEN another device's concurrent write of the same field replaced it unseen
        var other = original
        other["title"] = .string("Dune (theirs)")
        try await raceWrite(device, other, lineage: lineage(original) + ["other-write"])

        // THEN it is a conflict to resolve, with both values kept
        let report = await device.sync()
        #expect(report.outcome == .needsAttention, "\(report.message)")
        #expect(report.collections["books"]?.conflicts == 1)
        let conflict = try #require(try device.store.read { try $0.conflict(.books, id: "b1") })
        #expect(conflict.local.map { String(decoding: $0, as: UTF8.self).contains("Dune (mine)") } == true)
        #expect(conflict.remote.map { String(decoding: $0, as: UTF8.self).contains("Dune (theirs)") } == true)
    }
}
