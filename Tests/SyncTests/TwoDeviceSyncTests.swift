import Domain
import Foundation
import Storage
import Sync
import TestSupport
import Testing

/// Two local stores of one account against a real Kinto: what one device changes
/// reaches the other, disjoint edits merge, clashes follow the policy.
@Suite("Two devices, one account (real Kinto)")
struct TwoDeviceSyncTests {
    let server: KintoServer
    let user: TestUser

    init() async throws {
        server = try KintoServer.shared()
        user = try await server.newUser(prefix: "sync")
    }

    private func devices(policy: ConflictPolicy = .manual) throws -> (SyncDevice, SyncDevice) {
        let options = SyncOptions(policy: policy, retry: .none)
        return (try SyncDevice(user: user, server: server, options: options),
                try SyncDevice(user: user, server: server, options: options))
    }

    /// Both devices hold book b1 as synced.
    private func sharedBook(_ a: SyncDevice, _ b: SyncDevice) async throws {
        try a.saveBook("b1", title: "Dune")
        #expect(await a.sync().outcome == .synced)
        #expect(await b.sync().outcome == .synced)
        #expect(try b.title("b1") == "Dune")
    }

    @Test func aChangeOnOneDeviceReachesTheOther() async throws {
        let (a, b) = try devices()
        try a.saveBook("b1", title: "Dune")
        try a.saveBook("b2", title: "Solaris", author: "Stanisław Lem")
        let first = await a.sync()
        #expect(first.outcome == .synced)
        #expect(first.collections["books"]?.pushed == 2)
        #expect(try a.store.pendingCount() == 0)

        let second = await b.sync()
        #expect(second.outcome == .synced)
        #expect(try b.title("b2") == "Solaris")
        #expect(try b.bookFields("b2")?["author_name"] == .string("Stanisław Lem"))
    }

    @Test func disjointFieldEditsMergeOnBothDevices() async throws {
        let (a, b) = try devices()
        try await sharedBook(a, b)

        try a.editBook("b1") { $0["title"] = .string("Dune Messiah") }
        try b.editBook("b1") { $0["finished"] = .bool(true) }
        #expect(await a.sync().outcome == .synced)
        let merged = await b.sync()
        #expect(merged.outcome == .synced)
        #expect(merged.collections["books"]?.merged == 1)
        #expect(await a.sync().outcome == .synced)

        let server = try await a.serverBook("b1")
        #expect(server["title"] == .string("Dune Messiah"))
        #expect(server["finished"] == .bool(true))
        for device in [a, b] {
            #expect(try device.title("b1") == "Dune Messiah")
            #expect(try device.bookFields("b1")?["finished"] == .bool(true))
            #expect(try device.store.pendingCount() == 0)
        }
    }

    @Test func sameFieldClashIsStoredAndKeptLocallyUntilResolvedLocal() async throws {
        let (a, b) = try devices()
        try await sharedBook(a, b)
        try a.editBook("b1") { $0["title"] = .string("Title from A") }
        try b.editBook("b1") { $0["title"] = .string("Title from B") }
        #expect(await a.sync().outcome == .synced)

        let clash = await b.sync()
        #expect(clash.outcome == .needsAttention)
        #expect(clash.collections["books"]?.conflicts == 1)
        #expect(try b.title("b1") == "Title from B")   // the local edit is kept…
        #expect(try await b.serverBook("b1")["title"] == .string("Title from A"))  // …and not pushed
        let conflict = try #require(try b.store.read { try $0.conflict(.books, id: "b1") })
        #expect(conflict.remoteLastModified != nil)

        try ConflictResolver(store: b.store).resolve(.books, id: "b1", keep: .local)
        #expect(await b.sync().outcome == .synced)
        #expect(try await b.serverBook("b1")["title"] == .string("Title from B"))
        #expect(await a.sync().outcome == .synced)
        #expect(try a.title("b1") == "Title from B")
    }

    @Test func sameFieldClashResolvedRemoteTakesTheServersVersion() async throws {
        let (a, b) = try devices()
        try await sharedBook(a, b)
        try a.editBook("b1") { $0["title"] = .string("Title from A") }
        try b.editBook("b1") { $0["title"] = .string("Title from B") }
        #expect(await a.sync().outcome == .synced)
        #expect(await b.sync().outcome == .needsAttention)

        try ConflictResolver(store: b.store).resolve(.books, id: "b1", keep: .remote)
        #expect(try b.title("b1") == "Title from A")
        #expect(try b.store.pendingCount() == 0)
        #expect(await b.sync().outcome == .synced)
        #expect(throws: ResolutionError.noConflict(collection: .books, id: "b1")) {
            try ConflictResolver(store: b.store).resolve(.books, id: "b1", keep: .remote)
        }
    }

    @Test func deleteVersusEditIsAConflictBothWays() async throws {
        let (a, b) = try devices()
        try await sharedBook(a, b)
        try a.deleteBook("b1")
        try b.editBook("b1") { $0["title"] = .string("Still reading") }
        #expect(await a.sync().outcome == .synced)

        let report = await b.sync()
        #expect(report.outcome == .needsAttention)
        #expect(try b.title("b1") == "Still reading")
        let conflict = try #require(try b.store.read { try $0.conflict(.books, id: "b1") })
        #expect(conflict.remote == nil)

        // Keeping the local edit brings the book back on the server.
        try ConflictResolver(store: b.store).resolve(.books, id: "b1", keep: .local)
        #expect(await b.sync().outcome == .synced)
        #expect(try await b.serverBook("b1")["title"] == .string("Still reading"))
        #expect(await a.sync().outcome == .synced)
        #expect(try a.title("b1") == "Still reading")
    }

    @Test func editVersusLocalDeleteIsAConflict() async throws {
        let (a, b) = try devices()
        try await sharedBook(a, b)
        try a.editBook("b1") { $0["title"] = .string("Edited on A") }
        try b.deleteBook("b1")
        #expect(await a.sync().outcome == .synced)
        #expect(await b.sync().outcome == .needsAttention)
        try ConflictResolver(store: b.store).resolve(.books, id: "b1", keep: .remote)
        #expect(try b.title("b1") == "Edited on A")
    }

    @Test(arguments: [ConflictPolicy.serverWins, .clientWins])
    func policiesSettleClashesWithoutAPerson(_ policy: ConflictPolicy) async throws {
        let (a, b) = try devices(policy: policy)
        try await sharedBook(a, b)
        try a.editBook("b1") { $0["title"] = .string("A") }
        try b.editBook("b1") {
            $0["title"] = .string("B")
            $0["finished"] = .bool(true)
        }
        #expect(await a.sync().outcome == .synced)
        #expect(await b.sync().outcome == .synced)
        let server = try await b.serverBook("b1")
        #expect(server["title"] == .string(policy == .serverWins ? "A" : "B"))
        #expect(server["finished"] == .bool(true))  // the disjoint change survives either way
    }

    @Test func aStalePushGets412AndMergesInsteadOfOverwriting() async throws {
        let (a, b) = try devices()
        try await sharedBook(a, b)
        try a.editBook("b1") { $0["title"] = .string("Renamed on A") }
        #expect(await a.sync().outcome == .synced)
        try b.editBook("b1") { $0["author_name"] = .string("F. Herbert") }

        // Push without pulling first: the base is stale, so If-Match fails (412).
        let pushOnly = await b.sync { $0.pulls = false }
        #expect(pushOnly.outcome == .synced)
        #expect(pushOnly.collections["books"]?.merged == 1)
        #expect(await b.sync { $0.pulls = false }.outcome == .synced)
        let server = try await b.serverBook("b1")
        #expect(server["title"] == .string("Renamed on A"))
        #expect(server["author_name"] == .string("F. Herbert"))
    }

    @Test func nothingChangedCostsOneRequest() async throws {
        let (a, _) = try devices()
        try a.saveBook("b1", title: "Dune")
        #expect(await a.sync().outcome == .synced)
        #expect(await a.sync().outcome == .synced)  // records every collection's ETag
        let idle = await a.sync()
        #expect(idle.outcome == .synced)
        #expect(idle.requests == 1)
        #expect(idle.collections.values.allSatisfy { $0.pulled == 0 && $0.pushed == 0 })
    }
}
