import Domain
import Foundation
import Services
import Storage
import Sync
import TestSupport
import Synchronization
import Testing

/// Regression tests of convergence under faults: two devices of one account against a
/// real Kinto, reached through the fault proxy, which loses replies *after* the server
/// applied the request. Each case is one way a lost reply, a resolution or a server
/// that forgot used to make devices diverge, conflict falsely or lose an edit.
@Suite("Convergence under faults (real Kinto behind the fault proxy)")
struct ConvergenceTests {
    // MARK: Rig

    /// A fresh user, a proxy of its own in front of the shared Kinto, two devices
    /// through the proxy, and a client that reads the server directly.
    struct Rig {
        let server: KintoServer
        let proxy: FaultProxy
        let user: TestUser
        let a: SyncDevice
        let b: SyncDevice
        let direct: KintoCollectionService

        init(policy: ConflictPolicy = .manual, server: KintoServer? = nil) async throws {
            self.server = try server ?? KintoServer.shared()
            user = try await self.server.newUser(prefix: "converge")
            proxy = try FaultProxy.start(upstream: self.server)
            // NB: a server with backups has no shop catalog; the others sync it as usual.
            let options = SyncOptions(
                collections: server == nil ? CollectionName.allCases : CollectionName.writable, policy: policy, retry: .none)
            a = try SyncDevice(user: user, baseURL: proxy.baseURL, options: options)
            b = try SyncDevice(user: user, baseURL: proxy.baseURL, options: options)
            let client = APIClient(configuration: .init(
                baseURL: self.server.baseURL, credentials: .init(user: user.name, password: user.password),
                timeouts: KintoServer.deviceTimeouts))
            direct = KintoCollectionService(client: client, collection: .books)
        }

        /// Runs `device`'s sync while every push that carries `id` is applied by the
        /// server and its reply lost; the faults stop with the run.
        ///
        /// NB: every one, not just the first: libcurl sends a request again by itself
        /// when a reused connection closes before any byte of the reply ("Connection
        /// died, retrying a fresh connect"), on another pooled connection if it has one,
        /// up to five times — and each copy meets the change already applied.
        func syncLosingReplies(_ device: SyncDevice, to id: String) async throws -> RunReport {
            try await proxy.add(.init(.loseReply, method: .post, path: "/v1/batch", bodyContains: "/records/\(id)", count: -1))
            let report = await device.sync()
            try await proxy.clear()
            return report
        }

        /// A book added on A and both devices synced: where most cases start.
        func bookOnBothDevices(_ id: String, title: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            try a.saveBook(id, title: title)
            #expect(await a.sync().outcome == .synced, sourceLocation: sourceLocation)
            #expect(await b.sync().outcome == .synced, sourceLocation: sourceLocation)
        }

        /// A's title change applied by the server with its reply lost; then B pulls it
        /// and changes the title again, knowingly.
        func titleAppliedWithReplyLostThenChangedOnB(
            _ id: String, first: String, second: String, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            try a.editBook(id) { $0["title"] = .string(first) }
            #expect(try await syncLosingReplies(a, to: id).outcome == .temporaryFailure, sourceLocation: sourceLocation)
            #expect(try await serverBook(id)?["title"] == .string(first), sourceLocation: sourceLocation)
            #expect(await b.sync().outcome == .synced, sourceLocation: sourceLocation)
            #expect(try b.title(id) == first, sourceLocation: sourceLocation)
            try b.editBook(id) { $0["title"] = .string(second) }
            #expect(await b.sync().outcome == .synced, sourceLocation: sourceLocation)
        }

        /// The server's copy of a book, nil when it has none.
        func serverBook(_ id: String) async throws -> [String: JSONValue]? {
            do {
                return try await direct.record(id: id).fields()
            } catch let error as APIError {
                if case .notFound = error { return nil }
                throw error
            }
        }
    }

    private static func newID(_ what: String) -> String { "\(what)-\(UUID().uuidString.lowercased().prefix(8))" }

    /// Both devices quiet: nothing pending, no conflict, no dead letter.
    private func expectSettled(_ devices: SyncDevice..., sourceLocation: SourceLocation = #_sourceLocation) throws {
        for device in devices {
            #expect(try device.store.pendingCount() == 0, sourceLocation: sourceLocation)
            #expect(try device.store.read { try $0.conflictCount() } == 0, sourceLocation: sourceLocation)
            #expect(try device.store.read { try $0.deadLetterCount() } == 0, sourceLocation: sourceLocation)
        }
    }

    // MARK: Lost replies

    @Test("a create whose reply was lost, then deleted here, is deleted on the server", arguments: [true, false])
    func lostReplyThenDelete(pullsFirst: Bool) async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let id = Self.newID("lost-delete")
        try rig.a.saveBook(id, title: "Dune")

        // WHEN the push is applied but its reply lost
        let lost = try await rig.syncLosingReplies(rig.a, to: id)
        #expect(lost.outcome == .temporaryFailure)
        #expect(try await rig.serverBook(id)?["title"] == .string("Dune"))
        let inFlight = try #require(try rig.a.store.read { try $0.outboxEntry(.books, id: id) })
        #expect(inFlight.isInFlight)

        // AND the reader deletes the book before the next sync
        try rig.a.deleteBook(id)
        #expect(try rig.a.store.pendingCount() == 1, "the sent create is not coalesced away")

        // THEN the next sync deletes it on the server: nothing comes back
        let again = await rig.a.sync { $0.pulls = pullsFirst }
        #expect(again.outcome == .synced, "\(again.message)")
        #expect(again.totalConflicts == 0)
        #expect(try await rig.serverBook(id) == nil)
        #expect(await rig.b.sync().outcome == .synced)
        #expect(try rig.b.title(id) == nil)
        #expect(try rig.a.title(id) == nil)
        try expectSettled(rig.a, rig.b)
    }

    @Test("an edit whose reply was lost, then edited again, pushes the later edit without a conflict", arguments: [true, false])
    func lostReplyThenEdit(pullsFirst: Bool) async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let id = Self.newID("lost-edit")
        try rig.a.saveBook(id, title: "Dune")
        #expect(await rig.a.sync().outcome == .synced)

        try rig.a.editBook(id) { $0["title"] = .string("Dune Messiah") }
        #expect(try await rig.syncLosingReplies(rig.a, to: id).outcome == .temporaryFailure)
        #expect(try await rig.serverBook(id)?["title"] == .string("Dune Messiah"))

        // WHEN the same field is edited again (and another one), then synced
        try rig.a.editBook(id) {
            $0["title"] = .string("Children of Dune")
            $0["finished"] = .bool(true)
        }
        let again = await rig.a.sync { $0.pulls = pullsFirst }

        // THEN the later edit reaches the server, and nothing conflicted
        #expect(again.outcome == .synced, "\(again.message)")
        #expect(again.totalConflicts == 0)
        let server = try #require(try await rig.serverBook(id))
        #expect(server["title"] == .string("Children of Dune"))
        #expect(server["finished"] == .bool(true))
        #expect(await rig.b.sync().outcome == .synced)
        #expect(try rig.b.title(id) == "Children of Dune")
        #expect(try rig.a.title(id) == "Children of Dune")
        try expectSettled(rig.a, rig.b)
    }

    @Test func theEchoOfALostReplyIsAnAcknowledgement() async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let id = Self.newID("echo")
        try rig.a.saveBook(id, title: "Solaris", author: "Stanisław Lem")
        #expect(await rig.a.sync().outcome == .synced)
        try rig.a.editBook(id) { $0["title"] = .string("Solaris (2nd ed.)") }
        #expect(try await rig.syncLosingReplies(rig.a, to: id).outcome == .temporaryFailure)

        // WHEN a pull brings back exactly what was sent
        let pulled = await rig.a.sync { $0.pushes = false }

        // THEN it is an acknowledgement: no merge, no conflict, the base advanced
        #expect(pulled.outcome == .synced, "\(pulled.message)")
        #expect(pulled.totalConflicts == 0)
        #expect(pulled.collections["books"]?.merged == 0)
        let server = try #require(try await rig.serverBook(id))
        let row = try #require(try rig.a.store.record(.books, id: id))
        #expect(row.lastModified.map(Int.init) == server["last_modified"]?.intValue)
        #expect(try rig.a.store.read { try $0.base(.books, id: id) } == nil)
        #expect(try rig.a.title(id) == "Solaris (2nd ed.)")
        try expectSettled(rig.a)
    }

    @Test func aLostCreateEditedOnBothDevicesMergesWithoutAConflict() async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let id = Self.newID("echo-both")
        try rig.a.saveBook(id, title: "Dune")
        // A create for B's first sync to see: the first sync of an account pulls alone.
        #expect(await rig.b.sync().outcome == .synced)
        #expect(try await rig.syncLosingReplies(rig.a, to: id).outcome == .temporaryFailure)

        // WHEN B sees the book and changes the author, while A changes the title
        #expect(await rig.b.sync().outcome == .synced)
        try rig.b.editBook(id) { $0["author_name"] = .string("F. Herbert") }
        #expect(await rig.b.sync().outcome == .synced)
        try rig.a.editBook(id) { $0["title"] = .string("Dune (annotated)") }

        // THEN A's sync merges both edits: B's is no remote change to A's own create
        let merged = await rig.a.sync()
        #expect(merged.outcome == .synced, "\(merged.message)")
        #expect(merged.totalConflicts == 0)
        #expect(await rig.b.sync().outcome == .synced)
        for device in [rig.a, rig.b] {
            #expect(try device.title(id) == "Dune (annotated)")
            #expect(try device.bookFields(id)?["author_name"] == .string("F. Herbert"))
        }
        try expectSettled(rig.a, rig.b)
    }

    @Test("an edit whose reply was lost, then changed knowingly on another device, takes that change without a conflict",
          arguments: [true, false])
    func lostReplyThenTheOtherDeviceEditsTheSameField(pullsFirst: Bool) async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let id = Self.newID("lineage")
        try await rig.bookOnBothDevices(id, title: "Dune")

        // GIVEN A's title change was applied by the server, its reply lost, and B pulled
        // it and changed the same field afterwards
        try await rig.titleAppliedWithReplyLostThenChangedOnB(id, first: "Dune Messiah", second: "Children of Dune")

        // WHEN A syncs again (a pull meets B's version, or the repeated push's 412 does)
        let again = await rig.a.sync { $0.pulls = pullsFirst }
        #expect(again.outcome == .synced, "\(again.message)")
        #expect(await rig.a.sync().outcome == .synced)

        // THEN B's change stands everywhere: A's write was applied before it, no conflict
        #expect(again.totalConflicts == 0)
        #expect(try await rig.serverBook(id)?["title"] == .string("Children of Dune"))
        #expect(await rig.b.sync().outcome == .synced)
        #expect(try rig.a.title(id) == "Children of Dune")
        #expect(try rig.b.title(id) == "Children of Dune")
        try expectSettled(rig.a, rig.b)
    }

    @Test func lostReplyThenBothDevicesEditKeepsAsLaterEditOfAnotherField() async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let id = Self.newID("lineage-later")
        try await rig.bookOnBothDevices(id, title: "Dune")
        try await rig.titleAppliedWithReplyLostThenChangedOnB(id, first: "Dune Messiah", second: "Children of Dune")

        // WHEN A, its title change still in flight, also changes the author
        try rig.a.editBook(id) { $0["author_name"] = .string("F. Herbert") }
        let again = await rig.a.sync()

        // THEN B's title and A's later author both stand, with no conflict
        #expect(again.outcome == .synced, "\(again.message)")
        #expect(again.totalConflicts == 0)
        #expect(await rig.b.sync().outcome == .synced)
        for device in [rig.a, rig.b] {
            #expect(try device.title(id) == "Children of Dune")
            #expect(try device.bookFields(id)?["author_name"] == .string("F. Herbert"))
        }
        try expectSettled(rig.a, rig.b)
    }

    // MARK: Decisions

    @Test func resolvingKeepsTheOtherDevicesDisjointField() async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let id = Self.newID("resolve")
        try await rig.bookOnBothDevices(id, title: "Dune")

        // GIVEN A changed the title and the author, B the title: a conflict on the title only
        try rig.a.editBook(id) {
            $0["title"] = .string("Title from A")
            $0["author_name"] = .string("Author from A")
        }
        #expect(await rig.a.sync().outcome == .synced)
        try rig.b.editBook(id) { $0["title"] = .string("Title from B") }
        #expect(await rig.b.sync().outcome == .needsAttention)

        // AND, before B decides, A marks the book finished
        try rig.a.editBook(id) { $0["finished"] = .bool(true) }
        #expect(await rig.a.sync().outcome == .synced)

        // WHEN B keeps its title, and the reply to that push is lost once
        try ConflictResolver(store: rig.b.store).resolve(.books, id: id, keep: .local)
        #expect(try await rig.syncLosingReplies(rig.b, to: id).outcome == .temporaryFailure)
        let resolved = await rig.b.sync()
        #expect(resolved.outcome == .synced, "\(resolved.message)")

        // THEN only the title is B's: A's author and A's later "finished" survive
        let server = try #require(try await rig.serverBook(id))
        #expect(server["title"] == .string("Title from B"))
        #expect(server["author_name"] == .string("Author from A"))
        #expect(server["finished"] == .bool(true))
        #expect(await rig.a.sync().outcome == .synced)
        #expect(try rig.a.bookFields(id)?["author_name"] == .string("Author from A"))
        #expect(try rig.a.title(id) == "Title from B")
        try expectSettled(rig.a, rig.b)
    }

    @Test func serverWinsKeepsALocalEditTheServerNeverSawAndSaysWhatItDropped() async throws {
        let rig = try await Rig(policy: .serverWins)
        defer { rig.proxy.stop() }
        let id = Self.newID("server-wins")
        try await rig.bookOnBothDevices(id, title: "Dune")
        try rig.a.editBook(id) { $0["title"] = .string("Title from A") }
        #expect(await rig.a.sync().outcome == .synced)

        // WHEN B changed the same title and, too, the author — and its push's reply is lost
        try rig.b.editBook(id) {
            $0["title"] = .string("Title from B")
            $0["author_name"] = .string("Author from B")
        }
        try await rig.proxy.add(.init(.loseReply, method: .post, path: "/v1/batch", bodyContains: "/records/\(id)", count: -1))
        let events = EventLog()
        let first = await rig.b.engine.run { events.append($0) }
        try await rig.proxy.clear()
        #expect(first.outcome == .temporaryFailure)
        let second = await rig.b.sync()
        #expect(second.outcome == .synced, "\(second.message)")

        // THEN the server's title won, B's author was pushed, and the first run said what it dropped
        #expect(first.totalDiscardedLocal == 1)
        #expect(events.all.contains(.discardedLocalChange(.books, id: id, MergeConflict(kind: .fields, fields: ["title"]))))
        let server = try #require(try await rig.serverBook(id))
        #expect(server["title"] == .string("Title from A"))
        #expect(server["author_name"] == .string("Author from B"))
        #expect(await rig.a.sync().outcome == .synced)
        #expect(try rig.a.bookFields(id)?["author_name"] == .string("Author from B"))
        #expect(try rig.b.title(id) == "Title from A")
        try expectSettled(rig.a, rig.b)
    }

    // MARK: A server that forgets

    @Test func aDeletedCollectionIsNoticedAndFilledAgain() async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let kept = Self.newID("kept"), edited = Self.newID("edited")
        try rig.a.saveBook(kept, title: "Dune")
        try rig.a.saveBook(edited, title: "Solaris")
        #expect(await rig.a.sync().outcome == .synced)
        #expect(await rig.b.sync().outcome == .synced)
        try rig.a.editBook(edited) { $0["finished"] = .bool(true) }
        try rig.b.editBook(kept) { $0["author_name"] = .string("F. Herbert") }

        // WHEN the server's books collection is deleted (Kinto recreates it, empty)
        _ = try await rig.direct.client.send(.delete, "/buckets/default/collections/books")

        // THEN A says so, and uploads both books again with its waiting edit
        let events = EventLog()
        let recovered = await rig.a.engine.run { events.append($0) }
        #expect(recovered.outcome == .synced, "\(recovered.message)")
        #expect(recovered.collections["books"]?.serverForgot != nil)
        #expect(recovered.collections["books"]?.reuploaded == 2)
        #expect(events.all.contains { if case .serverForgot(.books, _) = $0 { true } else { false } })
        #expect(try await rig.serverBook(kept)?["title"] == .string("Dune"))
        #expect(try await rig.serverBook(edited)?["finished"] == .bool(true))

        // AND B, which synced before, ends with the same books and its own waiting edit
        // (its upload of the same book meets A's: merged against what both last had, no
        // conflict); a new device gets them all
        let b = await rig.b.sync()
        #expect(b.outcome == .synced, "\(b.message)")
        #expect(b.collections["books"]?.serverForgot != nil)
        #expect(try rig.b.bookFields(edited)?["finished"] == .bool(true))
        #expect(try await rig.serverBook(kept)?["author_name"] == .string("F. Herbert"))
        #expect(await rig.a.sync().outcome == .synced)
        #expect(try rig.a.bookFields(kept)?["author_name"] == .string("F. Herbert"))
        let c = try SyncDevice(user: rig.user, baseURL: rig.proxy.baseURL)
        #expect(await c.sync().outcome == .synced)
        #expect(try c.title(kept) == "Dune")
        #expect(try c.bookFields(kept)?["author_name"] == .string("F. Herbert"))
        #expect(try c.bookFields(edited)?["finished"] == .bool(true))
        try expectSettled(rig.a, rig.b, c)

        // AND a run with nothing to do is still one request
        let idle = await rig.a.sync()
        #expect(idle.requests == 1)
        #expect(idle.collections["books"]?.serverForgot == nil)
    }

    @Test func twoDevicesUploadingTheSameForgottenBooksMergeWithoutAConflict() async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let older = Self.newID("older"), edited = Self.newID("edited")
        try rig.a.saveBook(older, title: "Dune")
        try rig.a.saveBook(edited, title: "Solaris")
        #expect(await rig.a.sync().outcome == .synced)
        #expect(await rig.b.sync().outcome == .synced)
        // A has a newer version of one book than B pulled; B edits the other
        try rig.a.editBook(older) { $0["finished"] = .bool(true) }
        #expect(await rig.a.sync().outcome == .synced)
        try rig.b.editBook(edited) { $0["author_name"] = .string("Stanisław Lem") }

        // WHEN the collection is deleted, B queues its books again (pull only), then A
        // uploads its own copies before B pushes
        _ = try await rig.direct.client.send(.delete, "/buckets/default/collections/books")
        let queued = await rig.b.sync { $0.pushes = false }
        #expect(queued.collections["books"]?.reuploaded == 2)
        #expect(await rig.a.sync().outcome == .synced)
        let pushed = await rig.b.sync()

        // THEN B's uploads meet A's and merge against what B last had: no conflict, A's
        // newer version and B's edit both kept
        #expect(pushed.outcome == .synced, "\(pushed.message)")
        #expect(pushed.totalConflicts == 0)
        #expect(try await rig.serverBook(older)?["finished"] == .bool(true))
        #expect(try await rig.serverBook(edited)?["author_name"] == .string("Stanisław Lem"))
        #expect(await rig.a.sync().outcome == .synced)
        for device in [rig.a, rig.b] {
            #expect(try device.bookFields(older)?["finished"] == .bool(true))
            #expect(try device.bookFields(edited)?["author_name"] == .string("Stanisław Lem"))
        }
        try expectSettled(rig.a, rig.b)
    }

    @Test func anEditUploadedAgainAfterTheServerForgotIsNotOverwrittenByAnotherDevicesOlderCopy() async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let id = Self.newID("forgotten")
        try await rig.bookOnBothDevices(id, title: "Solaris")

        // WHEN the collection is deleted, B edits the book, and its upload of the book
        // (a create carrying the edit) leaves but never reaches the server: in flight
        _ = try await rig.direct.client.send(.delete, "/buckets/default/collections/books")
        try rig.b.editBook(id) { $0["author_name"] = .string("Stanisław Lem") }
        try await rig.proxy.add(.init(.reset, method: .post, path: "/v1/batch", bodyContains: "/records/\(id)", count: -1))
        let cut = await rig.b.sync()
        try await rig.proxy.clear()
        #expect(cut.collections["books"]?.reuploaded == 1)
        #expect(try rig.b.store.read { try $0.outboxEntry(.books, id: id) }?.isInFlight == true)
        // … and A uploads its own, older copy of the same book first
        #expect(await rig.a.sync().outcome == .synced)
        #expect(try await rig.serverBook(id)?["author_name"] == .string("Frank Herbert"))

        // THEN B's create meets A's copy, which is not what B sent (ids of forgotten
        // records are known to every device): merged against what B last had, B's edit
        // stands, without a conflict, on every device
        let b = await rig.b.sync()
        #expect(b.outcome == .synced, "\(b.message)")
        #expect(b.totalConflicts == 0)
        #expect(try rig.b.bookFields(id)?["author_name"] == .string("Stanisław Lem"))
        #expect(try await rig.serverBook(id)?["author_name"] == .string("Stanisław Lem"))
        #expect(await rig.a.sync().outcome == .synced)
        #expect(try rig.a.bookFields(id)?["author_name"] == .string("Stanisław Lem"))
        try expectSettled(rig.a, rig.b)
    }

    @Test func aBookDeletedAfterTheServerForgotStaysDeletedOnEveryDevice() async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let gone = Self.newID("gone"), kept = Self.newID("kept")
        try rig.a.saveBook(gone, title: "Dune")
        try rig.a.saveBook(kept, title: "Solaris")
        #expect(await rig.a.sync().outcome == .synced)
        #expect(await rig.b.sync().outcome == .synced)

        // WHEN the collection is deleted, A uploads both books again, then deletes one
        _ = try await rig.direct.client.send(.delete, "/buckets/default/collections/books")
        #expect(await rig.a.sync().outcome == .synced)
        try rig.a.deleteBook(gone)
        #expect(await rig.a.sync().outcome == .synced)

        // THEN B, pulling everything again, sees the deletion (a tombstone) and does not
        // upload the book again
        let b = await rig.b.sync()
        #expect(b.outcome == .synced, "\(b.message)")
        #expect(b.collections["books"]?.reuploaded == 0)
        #expect(try rig.b.title(gone) == nil)
        #expect(try rig.b.title(kept) == "Solaris")
        #expect(try await rig.serverBook(gone) == nil)
        try expectSettled(rig.a, rig.b)
    }

    @Test("a book deleted on one device while the server had forgotten it is not uploaded again by another",
          arguments: [false, true])
    func aDeletionWhileTheServerHadForgotten(afterQueueing: Bool) async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let gone = Self.newID("gone"), kept = Self.newID("kept")
        try rig.a.saveBook(gone, title: "Dune")
        try rig.a.saveBook(kept, title: "Solaris")
        #expect(await rig.a.sync().outcome == .synced)
        #expect(await rig.b.sync().outcome == .synced)

        // WHEN the collection is deleted and A deletes a book — before its next sync
        // notices, or after that sync queued the book to be uploaded again
        _ = try await rig.direct.client.send(.delete, "/buckets/default/collections/books")
        if afterQueueing { #expect(await rig.a.sync { $0.pushes = false }.outcome == .synced) }
        try rig.a.deleteBook(gone)
        let a = await rig.a.sync()
        #expect(a.outcome == .synced, "\(a.message)")

        // THEN B, which still has the book, learns of the deletion instead of uploading it
        let b = await rig.b.sync()
        #expect(b.outcome == .synced, "\(b.message)")
        #expect(await rig.a.sync().outcome == .synced)
        for device in [rig.a, rig.b] {
            #expect(try device.title(gone) == nil)
            #expect(try device.title(kept) == "Solaris")
        }
        #expect(try await rig.serverBook(gone) == nil)
        #expect(try await rig.serverBook(kept)?["title"] == .string("Solaris"))
        try expectSettled(rig.a, rig.b)
    }

    @Test func aStaleUploadArrivingAfterTheDeletionDoesNotBringTheBookBack() async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let gone = Self.newID("gone"), kept = Self.newID("kept")
        try rig.a.saveBook(gone, title: "Dune")
        try rig.a.saveBook(kept, title: "Solaris")
        #expect(await rig.a.sync().outcome == .synced)
        #expect(await rig.b.sync().outcome == .synced)

        // WHEN the collection is deleted and B pulls it empty, but its upload of the
        // book again is cut before reaching the server (in flight) …
        _ = try await rig.direct.client.send(.delete, "/buckets/default/collections/books")
        try await rig.proxy.add(.init(.reset, method: .post, path: "/v1/batch", bodyContains: "/records/\(gone)", count: -1))
        _ = await rig.b.sync()
        try await rig.proxy.clear()
        #expect(try rig.b.store.read { try $0.outboxEntry(.books, id: gone) }?.isInFlight == true)
        // … A deletes the book, leaving a tombstone on the server …
        try rig.a.deleteBook(gone)
        #expect(await rig.a.sync().outcome == .synced)
        #expect(try await rig.serverBook(gone) == nil)
        // … and only then B's create is sent again, before B pulls: Kinto takes a
        // create guarded with `If-None-Match: *` over a tombstone
        #expect(await rig.b.sync { $0.pulls = false }.outcome == .synced)
        #expect(try await rig.serverBook(gone)?["title"] == .string("Dune"))

        // THEN A recognises the version it deleted and deletes it again; B pulls the
        // tombstone: the book stays deleted everywhere, without a conflict
        for _ in 0..<2 {
            #expect(await rig.a.sync().outcome == .synced)
            #expect(await rig.b.sync().outcome == .synced)
        }
        for device in [rig.a, rig.b] {
            #expect(try device.title(gone) == nil)
            #expect(try device.title(kept) == "Solaris")
        }
        #expect(try await rig.serverBook(gone) == nil)
        try expectSettled(rig.a, rig.b)
    }

    @Test func aDeviceThatFilledAnEmptiedServerStillHearsOfLaterDeletions() async throws {
        let rig = try await Rig()
        defer { rig.proxy.stop() }
        let gone = Self.newID("gone"), kept = Self.newID("kept")
        try rig.a.saveBook(gone, title: "Dune")
        try rig.a.saveBook(kept, title: "Solaris")
        #expect(await rig.a.sync().outcome == .synced)
        #expect(await rig.b.sync().outcome == .synced)

        // WHEN the collection is deleted, B (finding it empty) uploads both books again,
        // and A, which deleted one meanwhile, deletes it on the server
        _ = try await rig.direct.client.send(.delete, "/buckets/default/collections/books")
        #expect(await rig.b.sync().collections["books"]?.reuploaded == 2)
        try rig.a.deleteBook(gone)
        #expect(await rig.a.sync().outcome == .synced)
        #expect(try await rig.serverBook(gone) == nil)

        // THEN B's next pull brings the deletion: its pull of an empty collection left a
        // cursor, so it asks with `_since`, which lists tombstones
        #expect(await rig.b.sync().outcome == .synced)
        #expect(try rig.b.title(gone) == nil)
        #expect(try rig.b.title(kept) == "Solaris")
        try expectSettled(rig.a, rig.b)
    }

    @Test("a collection restored to an older state is noticed and brought forward", arguments: [false, true])
    func aCollectionRestoredToAnOlderState(waitingDeviceFirst: Bool) async throws {
        let server = try KintoServer.startWithBackups()
        defer { server.stop() }
        let rig = try await Rig(server: server)
        defer { rig.proxy.stop() }
        let edited = Self.newID("edited"), deleted = Self.newID("deleted"), added = Self.newID("added")
        try rig.a.saveBook(edited, title: "Dune")
        try rig.a.saveBook(deleted, title: "Solaris")
        #expect(await rig.a.sync().outcome == .synced)
        #expect(await rig.b.sync().outcome == .synced)

        // GIVEN a backup, after which A edits one book, deletes another and adds a third
        try await server.saveBackup()
        try rig.a.editBook(edited) { $0["title"] = .string("Dune Messiah") }
        try rig.a.deleteBook(deleted)
        try rig.a.saveBook(added, title: "Hyperion", author: "Dan Simmons")
        #expect(await rig.a.sync().outcome == .synced)
        #expect(await rig.b.sync().outcome == .synced)
        // B's edits wait in its outbox: one of a book the backup lacks, one of a book
        // the backup has in an older version than the one B edited
        try rig.b.editBook(added) { $0["finished"] = .bool(true) }
        try rig.b.editBook(edited) { $0["author_name"] = .string("F. Herbert") }

        // WHEN the server is restored from that backup
        try await server.restoreBackup()
        #expect(try await rig.serverBook(added) == nil)
        #expect(try await rig.serverBook(edited)?["title"] == .string("Dune"))

        // THEN the first device to sync notices, and brings the server forward again: the
        // newer edit, the deletion, the book it no longer had
        let (first, second) = waitingDeviceFirst ? (rig.b, rig.a) : (rig.a, rig.b)
        let recovered = await first.sync()
        #expect(recovered.outcome == .synced, "\(recovered.message)")
        #expect(recovered.collections["books"]?.serverForgot != nil)
        #expect(try await rig.serverBook(edited)?["title"] == .string("Dune Messiah"))
        #expect(try await rig.serverBook(deleted) == nil)
        #expect(try await rig.serverBook(added)?["title"] == .string("Hyperion"))

        // AND the other notices too — the uploads moved the records' timestamp ahead
        // again, but the first touched the collection object when it found the restore —
        // and both end the same, with B's waiting edits
        let later = await second.sync()
        #expect(later.outcome == .synced, "\(later.message)")
        #expect(later.collections["books"]?.serverForgot != nil)
        #expect(await first.sync().outcome == .synced)
        for device in [rig.a, rig.b] {
            #expect(try device.title(edited) == "Dune Messiah")
            #expect(try device.bookFields(edited)?["author_name"] == .string("F. Herbert"))
            #expect(try device.title(deleted) == nil)
            #expect(try device.title(added) == "Hyperion")
            #expect(try device.bookFields(added)?["finished"] == .bool(true))
        }
        #expect(try await rig.serverBook(added)?["finished"] == .bool(true))
        #expect(try await rig.serverBook(edited)?["author_name"] == .string("F. Herbert"))
        try expectSettled(rig.a, rig.b)
        #expect(await rig.a.sync().requests == 1)
    }
}

// MARK: - EventLog

/// Events of a run, collected from its `@Sendable` callback.
final class EventLog: Sendable {
    private let events = Mutex<[SyncEvent]>([])
    func append(_ event: SyncEvent) { events.withLock { $0.append(event) } }
    var all: [SyncEvent] { events.withLock { $0 } }
}
