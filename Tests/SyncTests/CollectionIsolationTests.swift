import Domain
import Foundation
import Services
import Storage
import Sync
import TestSupport
import Synchronization
import Testing

/// One collection's permanent trouble (403/404) is that collection's outcome: the others
/// pull and push, its own local changes wait (never parked as refused), and its error is
/// recorded on it alone.
@Suite("Collections fail alone")
struct CollectionIsolationTests {
    /// A Kinto stand-in: `refused` collections answer `status`; the others are empty and
    /// accept every write.
    private static func server(refusing refused: Set<String>, status: Int) -> FakeHTTPTransport {
        FakeHTTPTransport { request in
            let error = #"{"code":\#(status),"errno":\#(status == 403 ? 121 : 111),"error":"Refused","message":"This user cannot access this resource."}"#
            if request.method == .post, request.url.hasSuffix("/batch") {
                let body = try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]
                let requests = body?["requests"] as? [[String: Any]] ?? []
                var stamp = 1_700_000_000_000
                let responses: [[String: Any]] = requests.map { sub in
                    let path = sub["path"] as? String ?? ""
                    if refused.contains(where: { path.contains("/collections/\($0)/") }) {
                        // NB: `try!` is safe: `error` is a JSON object built above from constants.
                        return ["status": status, "path": "/v1" + path, "headers": [:], "body": try! JSONSerialization.jsonObject(with: Data(error.utf8))]
                    }
                    if (sub["method"] as? String) == "GET" {
                        return ["status": 200, "path": "/v1" + path, "headers": ["ETag": "\"1\""], "body": ["data": []]]
                    }
                    stamp += 1
                    var data = (sub["body"] as? [String: Any])?["data"] as? [String: Any] ?? [:]
                    data["id"] = path.split(separator: "/").last.map(String.init) ?? ""
                    data["last_modified"] = stamp
                    return ["status": 201, "path": "/v1" + path, "headers": [:], "body": ["data": data]]
                }
                let json = try JSONSerialization.data(withJSONObject: ["responses": responses])
                return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: json, url: request.url)
            }
            if refused.contains(where: { request.url.contains("/collections/\($0)/") }) {
                return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(error.utf8), url: request.url)
            }
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json", "ETag": "\"1\""], body: Data(#"{"data":[]}"#.utf8), url: request.url)
        }
    }

    private static func engine(_ transport: FakeHTTPTransport, store: ShelfStore) -> SyncEngine {
        let client = APIClient(configuration: .init(baseURL: "http://127.0.0.1:9/v1", credentials: .init(user: "u", password: "p")), transport: transport)
        return SyncEngine(account: "u", store: store, client: client, options: SyncOptions(retry: .none))
    }

    private static func save(_ store: ShelfStore, _ collection: CollectionName, _ id: String, _ json: String) throws {
        _ = try store.write { tx in try tx.saveLocal(collection, id: id, json: Data(json.utf8)) }
    }

    @Test(arguments: [403, 404])
    func aRefusedCollectionOfTheReadersOwnNeedsAPersonAndTheOthersSync(status: Int) async throws {
        let store = try ShelfStore.inMemory()
        try Self.save(store, .books, "b1", #"{"id":"b1","title":"Dune","author_name":"Frank Herbert","finished":false}"#)
        try Self.save(store, .tasks, "t1", #"{"id":"t1","title":"Read","done":false}"#)

        let report = await Self.engine(Self.server(refusing: ["books"], status: status), store: store).run()

        #expect(report.outcome == .needsAttention, "\(report.message)")
        #expect(report.outcome.exitStatus == .failure)
        #expect(report.unavailable.keys.sorted() == ["books"])
        #expect(report.message.hasPrefix("books: the server"), "\(report.message)")
        #expect(report.collections["tasks"]?.pushed == 1)
        #expect(try store.pendingCount(in: .books) == 1, "the refused collection's change waits")
        #expect(try store.deadLetterCount() == 0, "nothing is parked as refused by the server")
        let states = try store.read { try $0.syncStates() }
        for state in states {
            if state.collection == .books {
                #expect(state.lastError?.hasPrefix("unavailable: ") == true, "\(state)")
            } else {
                #expect(state.lastError == nil, "\(state)")
                #expect(state.lastSuccess != nil, "\(state)")
            }
        }
    }

    @Test func theOptionalCatalogMissingLeavesTheRunSyncedWithAWarning() async throws {
        let store = try ShelfStore.inMemory()
        try Self.save(store, .books, "b1", #"{"id":"b1","title":"Dune","author_name":"Frank Herbert","finished":false}"#)
        let collected = Mutex<[SyncEvent]>([])
        let report = await Self.engine(Self.server(refusing: ["products"], status: 403), store: store).run { event in
            collected.withLock { $0.append(event) }
        }
        let events = collected.withLock { $0 }

        #expect(report.outcome == .synced, "\(report.message)")
        #expect(report.outcome.exitStatus == .success)
        #expect(report.message.hasPrefix("synced; the server offers no shop catalog"), "\(report.message)")
        #expect(report.collections["books"]?.pushed == 1)
        #expect(events.contains { if case .collectionUnavailable(.products, _) = $0 { true } else { false } })
        let status = try store.syncStatus()
        #expect(status.lastSuccess != nil, "the catalog alone does not keep 'last sync' at never")
        #expect(status.lastError?.hasPrefix("products: unavailable: the server offers no shop catalog") == true, "\(status)")
    }
}

/// What `shelf account add` says before it asks anything.
@Suite("Account verification: warnings without the network")
struct CleartextWarningTests {
    @Test(arguments: ["http://127.0.0.1:8888/v1", "http://127.8.9.10/v1", "http://localhost:8888/v1", "http://[::1]:8888/v1",
                      "https://kinto.example.org/v1", "https://192.0.2.10/v1"])
    func noWarningForLoopbackOrHTTPS(server: String) {
        #expect(AccountVerification.cleartextWarning(server: server) == nil)
    }

    @Test(arguments: ["http://192.0.2.10:8888/v1", "http://kinto.example.org/v1", "http://127.example.org/v1"])
    func plainHTTPToAnotherMachineWarns(server: String) {
        #expect(AccountVerification.cleartextWarning(server: server)?.contains("the password travels in clear") == true)
    }
}
