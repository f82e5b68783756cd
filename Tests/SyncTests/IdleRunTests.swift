import Domain
import Foundation
import Services
import Storage
@testable import Sync
import TestSupport
import Testing

/// An idle run is one request whatever the server is: a Kinto as installed (no shop
/// catalog: `shop/products` answers 403, run after run), with Basic auth or the accounts
/// plugin, or a server that refuses one of the reader's collections.
@Suite("An idle run is one request on every server shape")
struct IdleRunTests {
    enum Shape: String, CaseIterable, CustomTestStringConvertible {
        case plainWithoutCatalog = "Basic auth, no shop catalog"
        case accountsWithoutCatalog = "accounts plugin, no shop catalog"
        case accountsWithCatalog = "accounts plugin, shop catalog"

        var testDescription: String { rawValue }
    }

    /// The accounts plugin without the catalog: a server of its own, stopped after the test.
    private static func server(_ shape: Shape) throws -> (KintoServer, owned: Bool) {
        switch shape {
        case .plainWithoutCatalog: (try KintoServer.sharedPlain(), false)
        case .accountsWithoutCatalog: (try KintoServer.start(seedCatalog: false, auth: .accounts), true)
        case .accountsWithCatalog: (try KintoServer.shared(), false)
        }
    }

    @Test(arguments: Shape.allCases)
    func nothingChangedCostsOneRequest(_ shape: Shape) async throws {
        let (server, owned) = try Self.server(shape)
        defer { if owned { server.stop() } }
        let user = try await server.newUser(prefix: "idle")
        let device = try SyncDevice(user: user, server: server)
        try device.saveBook("b1", title: "Dune")
        let first = await device.sync()
        #expect(first.outcome == .synced, "\(first.message)")
        #expect((first.unavailable["products"] != nil) == (shape != .accountsWithCatalog))

        _ = await device.sync()
        let idle = await device.sync()

        #expect(idle.outcome == .synced, "\(idle.message)")
        #expect(idle.requests == 1, "\(shape.rawValue): \(idle.requests) requests")
        #expect(idle.collections.values.allSatisfy { $0.pulled == 0 && $0.pushed == 0 })
        #expect((idle.unavailable["products"] != nil) == (shape != .accountsWithCatalog), "the catalog's refusal is still reported")
    }

    @Test func aCollectionTheServerRefusesStaysInTheOneBatch() async throws {
        // GIVEN a server that has books but refuses sessions (404), every time
        let server = OutOfOrderKinto()
        server.put("b1", at: 1_000)
        let store = try ShelfStore.inMemory()
        let client = APIClient(configuration: .init(baseURL: "http://127.0.0.1:1/v1", credentials: .init(user: "u", password: "p")),
                               transport: server.transport)
        var options = SyncOptions(collections: [.books, .sessions], retry: RetryPolicy(maxAttempts: 1))
        options.optionalCollections = [.sessions]
        let engine = SyncEngine(account: "test", store: store, client: client, options: options)
        _ = await engine.run()
        _ = await engine.run()

        // WHEN nothing changed
        let before = server.requests.count
        let idle = await engine.run()

        // THEN one POST /batch asked for both, and the refusal is reported again
        #expect(idle.outcome == .synced, "\(idle.message)")
        #expect(idle.requests == 1)
        #expect(server.requests.count - before == 1)
        #expect(server.requests.last?.hasSuffix("/batch") == true)
        #expect(idle.unavailable["sessions"] != nil)
    }

    // MARK: - The user's bucket by its id

    @Test func theUsersBucketIdSkipsTheAliasAndADeletedCollectionIsStillNoticed() async throws {
        // GIVEN a device that knows its bucket's id from GET /v1/ (as `shelf account add` caches it)
        let server = try KintoServer.shared()
        let user = try await server.newUser(prefix: "bucket")
        let probe = try SyncDevice(user: user, server: server)
        let info = try await KintoServerInfoService(client: probe.client).fetch()
        let bucket = try #require(info.capabilities.userBucket)
        #expect(bucket != "default")
        let options = SyncOptions(retry: .none).adapted(to: info.capabilities)
        #expect(options.userBucket == bucket)
        let device = try SyncDevice(user: user, server: server, options: options)
        try device.saveBook("b1", title: "Dune")
        #expect(await device.sync().outcome == .synced)
        _ = await device.sync()

        // WHEN nothing changed: one request, through the bucket's id
        let idle = await device.sync()
        #expect(idle.outcome == .synced, "\(idle.message)")
        #expect(idle.requests == 1)

        // WHEN the server's books collection is deleted
        _ = try await probe.client.send(.delete, "/buckets/\(bucket)/collections/books")
        let after = await device.sync()

        // THEN the id path finds no collection, the run asks again through the alias
        // (which creates it), and the device notices the server forgot and uploads b1 again
        #expect(after.outcome == .synced, "\(after.message)")
        #expect(after.collections["books"]?.serverForgot != nil)
        #expect(after.collections["books"]?.reuploaded == 1)
        #expect(try await probe.serverBook("b1")["title"] == .string("Dune"))
        #expect(await device.sync().requests == 1, "idle again, by the id")
    }
}
