import Domain
import Foundation
import Services
import Storage
import Sync
import Synchronization
import TestSupport
import Testing

/// The server's capabilities shape a run: batches as large as `batch_max_requests`,
/// read-only mode recognised, and capabilities read again when a request shows they
/// changed.
@Suite("Server capabilities (real Kinto)")
struct ServerCapabilitiesTests {
    /// One Kinto for the suite with small limits: 10 requests per batch, 5 records per
    /// page. Each test has its own user, so its own bucket.
    private static let limited = Result { try KintoServer.start(
        seedCatalog: false, settings: ["KINTO_BATCH_MAX_REQUESTS": "10", "KINTO_PAGINATE_BY": "5"]) }

    /// An account of `user` on `kinto` in a private data folder, its requests recorded.
    private struct Machine {
        let sync: AccountSync
        let recorder: FakeHTTPTransport
        let account: ResolvedAccount

        init(_ kinto: KintoServer, _ user: TestUser) throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-caps-\(UUID().uuidString)")
            let paths = ShelfPaths(configDirectory: root.appendingPathComponent("config"), dataDirectory: root.appendingPathComponent("data"))
            account = ResolvedAccount(
                name: try AccountName("caps"), server: kinto.baseURL,
                credentials: Credentials(user: user.name, password: user.password), source: .environment)
            recorder = FakeHTTPTransport { request in try await CurlTransport.shared.send(request) }
            sync = try AccountSync(account: account, paths: paths, options: SyncOptions(retry: .none), transport: recorder)
        }

        func queueBooks(_ count: Int, prefix: String = "cap") throws {
            _ = try sync.store.write { tx in
                for index in 0..<count {
                    let id = String(format: "\(prefix)-%03d", index)
                    _ = try tx.saveLocal(.books, id: id, json: Data(#"{"id":"\#(id)","title":"Book \#(index)","author_name":"A","finished":false}"#.utf8))
                }
            }
        }

        /// How many sub-requests each `POST /batch` carried, in order.
        var batchSizes: [Int] {
            recorder.requests.filter { $0.method == .post && $0.url.hasSuffix("/batch") }.map { request in
                let body = (try? JSONSerialization.jsonObject(with: request.body ?? Data())) as? [String: Any]
                return (body?["requests"] as? [Any])?.count ?? 0
            }
        }
    }

    @Test func aServerThatAllowsTenRequestsPerBatchGetsBatchesOfTen() async throws {
        let kinto = try Self.limited.get()
        let user = try await kinto.newUser(prefix: "caps")
        let machine = try Machine(kinto, user)

        // GIVEN the capabilities `shelf account add` read and cached
        let verified = try await AccountVerification(
            server: kinto.baseURL, credentials: try machine.account.credentials(), transport: machine.recorder
        ).verify()
        #expect(verified.capabilities.batchMaxRequests == 10)
        try machine.sync.capabilitiesCache.save(verified.capabilities, for: machine.account.name, server: kinto.baseURL)

        // WHEN 25 local books are pushed
        try machine.queueBooks(25)
        let report = await machine.sync.runLocked()

        // THEN they go in batches of at most 10, none refused
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(report.collections["books"]?.pushed == 25)
        #expect(machine.batchSizes == [10, 10, 5], "\(machine.batchSizes)")
        #expect(try machine.sync.store.pendingCount() == 0)
    }

    @Test func withoutCachedCapabilitiesATooLargeBatchMakesTheRunReadThem() async throws {
        let kinto = try Self.limited.get()
        let user = try await kinto.newUser(prefix: "caps")
        let machine = try Machine(kinto, user)
        #expect(machine.sync.capabilitiesCache.load(machine.account.name, server: kinto.baseURL) == nil)

        // GIVEN an account from the environment (nothing cached), 25 changes queued
        try machine.queueBooks(25)
        let report = await machine.sync.runLocked()

        // THEN the first batch of 25 is refused (400), the server is asked (GET /v1/),
        // the run is made again — its pull one batch of 9 checks (every collection, the
        // refused catalog's included, the keyring and the collection objects), its push in
        // batches of 10 — and the capabilities are kept
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(machine.batchSizes == [25, 9, 10, 10, 5], "\(machine.batchSizes)")
        #expect(machine.recorder.requests.filter { $0.method == .get && $0.url.hasSuffix("/v1/") }.count == 1)
        #expect(try machine.sync.store.pendingCount() == 0)
        #expect(machine.sync.capabilitiesCache.load(machine.account.name, server: kinto.baseURL)?.batchMaxRequests == 10)
    }

    @Test func thePageLimitTheServerShowsIsKeptAndUsed() async throws {
        let kinto = try Self.limited.get()
        let user = try await kinto.newUser(prefix: "pages")
        let machine = try Machine(kinto, user)
        let verified = try await AccountVerification(
            server: kinto.baseURL, credentials: try machine.account.credentials(), transport: machine.recorder
        ).verify()
        #expect(verified.capabilities.paginateBy == nil, "Kinto does not publish paginate_by")
        try machine.sync.capabilitiesCache.save(verified.capabilities, for: machine.account.name, server: kinto.baseURL)

        // GIVEN 12 books on the server, pulled with the default page size (10,000)
        let writer = APIClient(configuration: .init(baseURL: kinto.baseURL, credentials: .init(user: user.name, password: user.password)))
        let operations = try (0..<12).map { index in
            try KintoRequest.create(in: KintoCollectionPath(.books), id: "pg-\(index)",
                                      data: Data(#"{"title":"Page \#(index)","author_name":"A","finished":false}"#.utf8))
        }
        _ = try await KintoBatchService(client: writer, maximumRequests: 10).send(operations)
        let first = await machine.sync.runLocked()
        #expect(first.collections["books"]?.pulled == 12)

        // THEN pages of 5 showed the server's limit, which is kept…
        #expect(first.serverPageLimit == 5)
        #expect(machine.sync.capabilitiesCache.load(machine.account.name, server: kinto.baseURL)?.paginateBy == 5)

        // …and the next run asks for pages of that size
        let before = machine.recorder.requests.count
        let second = await machine.sync.runLocked()
        #expect(second.outcome == .synced, "\(second.message)")
        let asked = machine.recorder.requests.dropFirst(before).map { request in
            request.url + String(decoding: request.body ?? Data(), as: UTF8.self)
        }
        #expect(asked.contains { $0.contains("_limit=5") }, "\(asked)")
        #expect(!asked.contains { $0.contains("_limit=10000") }, "\(asked)")
    }

    /// A read-only Kinto (`kinto.readonly = true`) refuses every write with 405 and says
    /// so in `GET /v1/`. NB: scripted, because a read-only Kinto cannot be given data to
    /// serve, and its `default` bucket of a new user answers 405 even to reads.
    @Test func aReadOnlyServerIsPulledAndLocalChangesWait() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-readonly-\(UUID().uuidString)")
        let paths = ShelfPaths(configDirectory: root.appendingPathComponent("config"), dataDirectory: root.appendingPathComponent("data"))
        let server = "http://127.0.0.1:9/v1"
        let readOnly = Atomic<Bool>(true)
        let transport = FakeHTTPTransport { request in
            let isReadOnly = readOnly.load(ordering: .relaxed)
            let json: String
            let status: Int
            if request.method == .post, request.url.hasSuffix("/batch"), !isReadOnly {
                let body = try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]
                let responses: [[String: Any]] = ((body?["requests"] as? [[String: Any]]) ?? []).enumerated().map { index, sub in
                    if (sub["method"] as? String) == "GET" {
                        return ["status": 200, "path": "/v1" + (sub["path"] as? String ?? ""), "headers": [:], "body": ["data": []]]
                    }
                    var data = (sub["body"] as? [String: Any])?["data"] as? [String: Any] ?? [:]
                    data["id"] = (sub["path"] as? String)?.split(separator: "/").last.map(String.init) ?? ""
                    data["last_modified"] = 1_700_000_000_000 + index
                    return ["status": 201, "path": "/v1" + (sub["path"] as? String ?? ""), "headers": [:], "body": ["data": data]]
                }
                (status, json) = (200, String(decoding: try JSONSerialization.data(withJSONObject: ["responses": responses]), as: UTF8.self))
            } else if request.method != .get && request.method != .head {
                (status, json) = (405, #"{"code":405,"errno":115,"error":"Method Not Allowed","message":"Method not allowed on this endpoint."}"#)
            } else if request.url == server + "/" {
                (status, json) = (200, #"{"project_name":"kinto","http_api_version":"1.23","settings":{"batch_max_requests":25,"readonly":\#(isReadOnly)},"capabilities":{"default_bucket":{}},"user":{"id":"account:ro"}}"#)
            } else {
                (status, json) = (200, #"{"data":[]}"#)
            }
            return HTTPResponse(status: status, headers: ["Content-Type": "application/json", "ETag": "\"1\""], body: Data(json.utf8), url: request.url)
        }
        let account = ResolvedAccount(
            name: try AccountName("ro"), server: server, credentials: Credentials(user: "ro", password: "pw"), source: .environment)
        let sync = try AccountSync(account: account, paths: paths, options: SyncOptions(retry: .none), transport: transport)
        _ = try sync.store.write { tx in
            for index in 0..<3 {
                _ = try tx.saveLocal(.books, id: "ro-\(index)", json: Data(#"{"id":"ro-\#(index)","title":"T","author_name":"A","finished":false}"#.utf8))
            }
        }

        let report = await sync.runLocked()

        // The first push meets 405, the capabilities say read-only, the run is made again
        // as pulls only: changes wait, nothing is parked as refused.
        #expect(report.outcome == .temporaryFailure, "\(report.message)")
        #expect(report.message.contains("the server is read-only: 3 local changes wait until it accepts writes"), "\(report.message)")
        #expect(try sync.store.pendingCount() == 3)
        #expect(try sync.store.deadLetterCount() == 0)
        #expect(sync.capabilitiesCache.load(account.name, server: server)?.readOnly == true)

        // The next run knows: no write is even tried.
        let before = transport.requests.count
        let again = await sync.runLocked()
        #expect(again.outcome == .temporaryFailure)
        #expect(transport.requests.count > before)
        #expect(transport.requests.dropFirst(before).allSatisfy { $0.method == .get })

        // Once the server accepts writes again, the next run sees it and pushes.
        readOnly.store(false, ordering: .relaxed)
        let writable = await sync.runLocked()
        #expect(writable.outcome == .synced, "\(writable.message)")
        #expect(writable.collections["books"]?.pushed == 3)
        #expect(try sync.store.pendingCount() == 0)
    }
}
