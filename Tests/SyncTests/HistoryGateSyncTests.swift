import Domain
import Foundation
import Services
import Storage
@testable import Sync
import Synchronization
import TestSupport
import Testing

/// An idle run on a Kinto with `kinto.plugins.history` reads the bucket's history instead
/// of every collection (`HistoryGate`), and still misses nothing: another device's edit and
/// deletion arrive at the next run, this device's own pushes leave the next run idle, a
/// server that lost its history costs a request more, never a change, and every collection
/// is asked again once the reading is an hour old. `HistoryGateTests` decides the same
/// rule from tables.
@Suite("Idle runs that read the bucket's history")
struct HistoryGateSyncTests {
    /// Every request a device sends, on to the real server.
    static func recording() -> FakeHTTPTransport {
        FakeHTTPTransport { request in try await CurlTransport.shared.send(request, onHead: nil) }
    }

    /// The sub-requests' paths of a `POST /batch` body.
    static func subRequests(_ request: HTTPRequest?) -> [String] {
        struct Batch: Decodable {
            struct Request: Decodable { let path: String }
            let requests: [Request]
        }
        guard let body = request?.body, let batch = try? JSONDecoder().decode(Batch.self, from: body) else { return [] }
        return batch.requests.map(\.path)
    }

    /// Options for `user` on `server` as `shelf` adapts them to the server's capabilities.
    static func options(_ user: TestUser, on server: KintoServer) async throws -> SyncOptions {
        let probe = try SyncDevice(user: user, server: server)
        let info = try await KintoServerInfoService(client: probe.client).fetch()
        return SyncOptions(retry: .none).adapted(to: info.capabilities)
    }

    /// A device idle through the history on a Kinto that keeps it (b1 "Dune" saved and
    /// four runs made), a second device of the same reader, the device's bucket and its
    /// reading of the history then.
    static func idleThroughTheHistory(
        prefix: String, transport: any HTTPTransport
    ) async throws -> (device: SyncDevice, other: SyncDevice, bucket: String, before: BucketHistoryState) {
        let server = try KintoServer.sharedWithHistory()
        let user = try await server.newUser(prefix: prefix)
        let options = try await Self.options(user, on: server)
        let device = try SyncDevice(user: user, server: server, options: options, transport: transport)
        let other = try SyncDevice(user: user, server: server, options: options)
        try device.saveBook("b1", title: "Dune")
        for _ in 1...4 { _ = await device.sync() }
        let bucket = try #require(options.userBucket)
        let before = try #require(try device.store.read { try $0.bucketHistory(of: bucket) })
        return (device, other, bucket, before)
    }

    // MARK: - Idle, then news

    @Test func anIdleRunReadsTheHistoryAloneAndAnotherDevicesEditAndDeletionStillArrive() async throws {
        // GIVEN two devices of one reader on a Kinto that keeps history, the first primed
        let server = try KintoServer.sharedWithHistory()
        let user = try await server.newUser(prefix: "history")
        let options = try await Self.options(user, on: server)
        #expect(options.readsBucketHistory)
        let transport = Self.recording()
        let device = try SyncDevice(user: user, server: server, options: options, transport: transport)
        let other = try SyncDevice(user: user, server: server, options: options)
        try device.saveBook("b1", title: "Dune")
        try device.saveBook("b2", title: "Emma")
        #expect(await device.sync().outcome == .synced)
        #expect(await device.sync().outcome == .synced, "the ordinary run that takes the history's first reading")
        // NB: that run's keyring GET, through the `default` alias, created the keyring's
        // collection after the history was read: news once, for the run after.
        #expect(await device.sync().outcome == .synced)

        // WHEN nothing changed
        let idle = await device.sync()

        // THEN one request: the history and the catalog, no collection of the reader's
        #expect(idle.outcome == .synced, "\(idle.message)")
        #expect(idle.requests == 1)
        let asked = Self.subRequests(transport.requests.last)
        #expect(asked.count == 2, "\(asked)")
        #expect(asked.first?.contains("/history?") == true, "\(asked)")
        #expect(!asked.contains { $0.contains("/collections/books/") }, "\(asked)")
        #expect(try device.store.read { try $0.bucketHistory(of: try #require(options.userBucket)) } != nil)

        // WHEN the other device retitles b1 and deletes b2
        #expect(await other.sync().outcome == .synced)
        try other.editBook("b1") { $0["title"] = .string("Dune Messiah") }
        try other.deleteBook("b2")
        #expect(await other.sync().outcome == .synced)
        let news = await device.sync()

        // THEN the history's news makes it an ordinary run, which brings both
        #expect(news.outcome == .synced, "\(news.message)")
        #expect(try device.title("b1") == "Dune Messiah")
        #expect(try device.bookFields("b2") == nil)
        #expect(news.requests == 2, "the history, then every collection")

        // AND the run after is idle again, through the history alone
        let after = await device.sync()
        #expect(after.requests == 1)
        #expect(after.collections.values.allSatisfy { $0.pulled == 0 })
        #expect(Self.subRequests(transport.requests.last).count == 2, "\(Self.subRequests(transport.requests.last))")
    }

    @Test func thisDevicesOwnPushLeavesTheNextRunIdle() async throws {
        // GIVEN a primed device on a Kinto that keeps history
        let server = try KintoServer.sharedWithHistory()
        let user = try await server.newUser(prefix: "history-own")
        let options = try await Self.options(user, on: server)
        let transport = Self.recording()
        let device = try SyncDevice(user: user, server: server, options: options, transport: transport)
        try device.saveBook("b1", title: "Dune")
        _ = await device.sync()
        _ = await device.sync()

        // WHEN it pushes an edit and a new book
        try device.editBook("b1") { $0["title"] = .string("Dune (1965)") }
        try device.saveBook("b2", title: "Emma")
        let push = await device.sync()
        #expect(push.outcome == .synced, "\(push.message)")
        #expect(push.collections["books"]?.pushed == 2)

        // THEN the next run finds only its own entries in the history, held: one request, the history's
        let next = await device.sync()
        #expect(next.outcome == .synced, "\(next.message)")
        #expect(next.requests == 1)
        let asked = Self.subRequests(transport.requests.last)
        #expect(asked.count == 2 && asked.first?.contains("/history?") == true, "\(asked)")
        #expect(next.collections.values.allSatisfy { $0.pulled == 0 })
    }

    @Test func aRunOfSomeCollectionsNeitherReadsTheHistoryNorTakesAReading() async throws {
        // GIVEN a device idle through the history
        let transport = Self.recording()
        let (device, other, bucket, before) = try await Self.idleThroughTheHistory(prefix: "history-some", transport: transport)

        // WHEN the other device retitles b1, and the device refreshes the cart and the catalog only
        _ = await other.sync()
        try other.editBook("b1") { $0["title"] = .string("Dune Messiah") }
        _ = await other.sync()
        let some = await device.sync { $0.collections = [.cart, .products]; $0.pushes = false }

        // THEN that run asks those two collections as it always did, and leaves the reading alone
        #expect(some.outcome == .synced, "\(some.message)")
        let asked = Self.subRequests(transport.requests.last)
        #expect(!asked.contains { $0.contains("/history") }, "\(asked)")
        #expect(try device.store.read { try $0.bucketHistory(of: bucket) } == before)

        // AND the next whole run reads the edit as news, and brings it
        _ = await device.sync()
        #expect(try device.title("b1") == "Dune Messiah")
    }

    // MARK: - What the history cannot be trusted with

    @Test func everyCollectionIsAskedAgainOnceTheReadingIsAnHourOld() async throws {
        // GIVEN a device reading the history, its clock under the test's control
        let server = try KintoServer.sharedWithHistory()
        let user = try await server.newUser(prefix: "history-hour")
        let options = try await Self.options(user, on: server)
        let transport = Self.recording()
        let clock = ManualClock(Date())
        let device = try SyncDevice(user: user, server: server, options: options, clock: clock.clock, transport: transport)
        try device.saveBook("b1", title: "Dune")
        for _ in 1...4 { _ = await device.sync() }
        #expect(Self.subRequests(transport.requests.last).count == 2)

        // WHEN an hour has passed since the last run that asked every collection
        clock.advance(by: .seconds(3_601))
        let full = await device.sync()

        // THEN this run asks every collection (a change the history never recorded, written
        // straight into the database, is found there), and takes a fresh reading for the next
        #expect(full.outcome == .synced, "\(full.message)")
        let asked = Self.subRequests(transport.requests.last)
        #expect(asked.contains { $0.contains("/collections/books/records") }, "\(asked)")
        #expect(asked.first?.contains("/history?") == true, "the newest entry first: \(asked)")
        _ = await device.sync()
        #expect(Self.subRequests(transport.requests.last).count == 2, "idle through the history again")
    }

    @Test func aServerThatDoesNotRecordThisReadersHistoryIsFoundOutAtItsFirstWrite() async throws {
        // GIVEN a Kinto that keeps history but not of this reader's writes (`history.exclude_user_ids`)
        let user = TestUser(prefix: "history-excluded")
        let plain = try SyncDevice(user: user, server: try KintoServer.sharedPlain())
        let userID = try #require(try await KintoServerInfoService(client: plain.client).fetch().userID)
        // NB: a setting Kinto has no default for is read from the ini only, not the environment.
        let fixture = try String(contentsOf: FixtureFiles.repositoryRoot.appendingPathComponent("Fixtures/kinto/kinto-basicauth.ini"), encoding: .utf8)
        let ini = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-history-excluded-\(UUID().uuidString).ini")
        try fixture.replacingOccurrences(of: "[app:main]\n", with: "[app:main]\nhistory.exclude_user_ids = \(userID)\n")
            .write(to: ini, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: ini) }
        let server = try KintoServer.start(
            seedCatalog: false, settings: ["KINTO_INCLUDES": "kinto.plugins.default_bucket kinto.plugins.history"], auth: .basicAuth,
            ini: ini.path)
        defer { server.stop() }
        let options = try await Self.options(user, on: server)
        let transport = Self.recording()
        let device = try SyncDevice(user: user, server: server, options: options, transport: transport)
        let other = try SyncDevice(user: user, server: server, options: options)
        try device.saveBook("b1", title: "Dune")
        for _ in 1...3 { _ = await device.sync() }
        let bucket = try #require(options.userBucket)
        #expect(Self.subRequests(transport.requests.last).count == 2, "a history with nothing in it reads as quiet")

        // WHEN the device writes, and the other device too
        try device.editBook("b1") { $0["title"] = .string("Dune (1965)") }
        #expect(await device.sync().collections["books"]?.pushed == 1)
        _ = await other.sync()
        try other.saveBook("b2", title: "Emma")
        _ = await other.sync()
        let next = await device.sync()

        // THEN the history does not show the device's write: it is not read for a day, the
        // run asks every collection, and the other device's book arrives
        #expect(next.outcome == .synced, "\(next.message)")
        #expect(try device.title("b2") == "Emma")
        let reading = try #require(try device.store.read { try $0.bucketHistory(of: bucket) })
        #expect(reading.distrustedUntil != nil)
        _ = await device.sync()
        let asked = Self.subRequests(transport.requests.last)
        #expect(!asked.contains { $0.contains("/history") }, "\(asked)")
        #expect(asked.contains { $0.contains("/collections/books/records") }, "\(asked)")
    }

    /// A flag a test turns while a transport reads it.
    final class Switch: Sendable {
        private let state = Mutex(false)
        var isOn: Bool { state.withLock { $0 } }
        func turn(_ on: Bool) { state.withLock { $0 = on } }
    }

    /// Every request on to the real server, the history's sub-response of a gate's batch
    /// answered with `status` instead while `failing` says so.
    static func failingHistory(_ status: Int, failing: Switch) -> FakeHTTPTransport {
        FakeHTTPTransport { request in
            var response = try await CurlTransport.shared.send(request, onHead: nil)
            guard failing.isOn, let body = request.body, String(decoding: body, as: UTF8.self).contains("/history?_since"),
                  var answer = try JSONSerialization.jsonObject(with: response.body) as? [String: Any],
                  var responses = answer["responses"] as? [[String: Any]], !responses.isEmpty
            else { return response }
            responses[0]["status"] = status
            responses[0]["body"] = ["code": status, "errno": 999, "error": "refused", "message": "the history is not served"]
            answer["responses"] = responses
            response.body = try JSONSerialization.data(withJSONObject: answer)
            return response
        }
    }

    @Test(arguments: [(503, true), (404, false)])
    func aHistoryReadThatFailsMakesAnOrdinaryRun(status: Int, keepsTheReading: Bool) async throws {
        // GIVEN a device idle through the history
        let failing = Switch()
        let (device, other, bucket, before) = try await Self.idleThroughTheHistory(
            prefix: "history-fails", transport: Self.failingHistory(status, failing: failing))

        // WHEN the other device adds a book, and the history's read fails
        _ = await other.sync()
        try other.saveBook("b2", title: "Emma")
        _ = await other.sync()
        failing.turn(true)
        let run = await device.sync()

        // THEN the run asks every collection and brings the book; a refusal (404) drops the
        // reading, a passing failure (503) keeps it
        #expect(run.outcome == .synced, "\(run.message)")
        #expect(try device.title("b2") == "Emma")
        let after = try device.store.read { try $0.bucketHistory(of: bucket) }
        #expect(after == (keepsTheReading ? before : nil), "\(status)")

        // AND the next run reads the history again, or takes a new reading
        failing.turn(false)
        #expect(await device.sync().outcome == .synced)
        #expect(try device.store.read { try $0.bucketHistory(of: bucket) } != nil)
    }

    @Test func aServerThatLostItsHistoryCostsARequestMoreNeverAChange() async throws {
        // GIVEN devices told the server keeps history, on a Kinto that has none
        let server = try KintoServer.sharedPlain()
        let user = try await server.newUser(prefix: "history-none")
        var options = try await Self.options(user, on: server)
        #expect(!options.readsBucketHistory)
        options.readsBucketHistory = true
        let device = try SyncDevice(user: user, server: server, options: options)
        let other = try SyncDevice(user: user, server: server, options: options)
        try device.saveBook("b1", title: "Dune")
        _ = await device.sync()
        _ = await device.sync()

        // WHEN nothing changed, then the other device edits
        let idle = await device.sync()
        #expect(idle.outcome == .synced, "\(idle.message)")
        #expect(idle.requests == 1, "the history's refusal rides in the ordinary batch")
        _ = await other.sync()
        try other.editBook("b1") { $0["title"] = .string("Dune Messiah") }
        _ = await other.sync()
        let news = await device.sync()

        // THEN every run is an ordinary one, and the edit arrives
        #expect(news.outcome == .synced, "\(news.message)")
        #expect(try device.title("b1") == "Dune Messiah")
        #expect(try device.store.read { try $0.bucketHistory(of: try #require(options.userBucket)) } == nil)
    }
}
