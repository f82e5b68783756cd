import Domain
import Foundation
import Storage
import Sync
import TestSupport
import Testing

/// A person's decisions through a real Kinto with two devices: a conflict settled field
/// by field (or with a written value) converges on both devices, keeping the other
/// device's change of a field that did not clash; an undone change leaves nothing to
/// push and the server's version stands.
@Suite("Judged conflicts and undo, two devices (real Kinto)")
struct JudgedConflictSyncTests {
    let server: KintoServer
    let user: TestUser

    init() async throws {
        server = try KintoServer.shared()
        user = try await server.newUser(prefix: "judge")
    }

    private func devices() throws -> (SyncDevice, SyncDevice) {
        let options = SyncOptions(collections: CollectionName.writable, retry: .none)
        return (try SyncDevice(user: user, server: server, options: options), try SyncDevice(user: user, server: server, options: options))
    }

    /// Book b1 synced on both devices, then A changes title, author and pages and B
    /// changes title, pages and finished: title and pages clash on B.
    private func clashOnB(_ a: SyncDevice, _ b: SyncDevice) async throws {
        try a.saveBook("b1", title: "Dune")
        try a.editBook("b1") { $0["pages"] = .number(412) }
        #expect(await a.sync().outcome == .synced)
        #expect(await b.sync().outcome == .synced)
        try a.editBook("b1") { fields in
            fields["title"] = .string("Dune (A)")
            fields["author_name"] = .string("Frank Herbert Jr")
            fields["pages"] = .number(500)
        }
        try b.editBook("b1") { fields in
            fields["title"] = .string("Dune (B)")
            fields["pages"] = .number(600)
            fields["finished"] = .bool(true)
        }
        #expect(await a.sync().outcome == .synced)
        #expect(await b.sync().outcome == .needsAttention)
    }

    @Test func aConflictSettledFieldByFieldConvergesOnBothDevices() async throws {
        let (a, b) = try devices()
        try await clashOnB(a, b)
        let resolver = ConflictResolver(store: b.store)
        let detail = try resolver.detail(.books, id: "b1")
        #expect(detail.clashingFields == ["pages", "title"])
        #expect(detail.fields.first { $0.name == "author_name" }?.outcome == .server)
        #expect(detail.fields.first { $0.name == "finished" }?.outcome == .local)

        try resolver.resolve(.books, id: "b1", ConflictDecisions(fields: ["title": .keep(.local), "pages": .keep(.remote)]))
        let pushed = await b.sync()
        #expect(pushed.outcome == .synced, "\(pushed.message)")
        #expect(pushed.collections["books"]?.pushed == 1)
        #expect(await a.sync().outcome == .synced)

        let expected: [String: JSONValue] = [
            "title": .string("Dune (B)"), "pages": .number(500), "author_name": .string("Frank Herbert Jr"), "finished": .bool(true),
        ]
        let server = try await b.serverBook("b1")
        for device in [a, b] {
            let fields = try #require(try device.bookFields("b1"))
            for (name, value) in expected {
                #expect(fields[name] == value, "\(name)")
                #expect(server[name] == value, "\(name) on the server")
            }
            #expect(try device.store.read { try $0.conflictCount() } == 0)
            #expect(try device.store.pendingCount() == 0)
        }
    }

    @Test func aWrittenValueIsPushedAgainstTheServersVersion() async throws {
        let (a, b) = try devices()
        try await clashOnB(a, b)
        try ConflictResolver(store: b.store).resolve(
            .books, id: "b1", ConflictDecisions(others: .local, fields: ["title": .written("Dune, merged by hand")]))
        #expect(await b.sync().outcome == .synced)
        #expect(await a.sync().outcome == .synced)
        for device in [a, b] {
            let fields = try #require(try device.bookFields("b1"))
            #expect(fields["title"] == .string("Dune, merged by hand"))
            #expect(fields["pages"] == .number(600))
            #expect(fields["author_name"] == .string("Frank Herbert Jr"))
        }
    }

    @Test func anUndoneEditOrCreationSendsNothingAndTheServersVersionWins() async throws {
        let (a, b) = try devices()
        try a.saveBook("b1", title: "Dune")
        #expect(await a.sync().outcome == .synced)
        #expect(await b.sync().outcome == .synced)
        // B changes the title on the server; A edits and adds, then takes both back.
        try b.editBook("b1") { $0["title"] = .string("Dune, from B") }
        #expect(await b.sync().outcome == .synced)
        try a.editBook("b1") { $0["title"] = .string("A typo") }
        try a.saveBook("b2", title: "Never meant")
        let changes = UnsyncedChanges(store: a.store)
        #expect(try changes.discardLatest().recordID == "b2")
        #expect(try changes.discardLatest().recordID == "b1")

        let report = await a.sync()
        #expect(report.outcome == .synced)
        #expect(report.collections["books"]?.pushed == 0)
        #expect(report.collections["books"]?.conflicts == 0)
        #expect(try a.title("b1") == "Dune, from B")
        #expect(try a.bookFields("b2") == nil)
        #expect(try await a.serverBook("b1")["title"] == .string("Dune, from B"))
        #expect(await b.sync().outcome == .synced)
        #expect(try b.bookFields("b2") == nil)
    }

    @Test func anUndoneDeletionKeepsTheRecordEverywhere() async throws {
        let (a, b) = try devices()
        try a.saveBook("b1", title: "Dune")
        #expect(await a.sync().outcome == .synced)
        #expect(await b.sync().outcome == .synced)
        try a.deleteBook("b1")
        try UnsyncedChanges(store: a.store).discard(.books, id: "b1")
        #expect(await a.sync().collections["books"]?.pushed == 0)
        #expect(try await a.serverBook("b1")["title"] == .string("Dune"))
        #expect(try a.title("b1") == "Dune")
    }
}
