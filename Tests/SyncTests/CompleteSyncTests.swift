import Domain
import Foundation
import Services
import Storage
import Sync
import Synchronization
import Testing
import TestSupport

/// "Last sync" is the start of the last run that pulled every collection and sent every
/// change it could: a push the server failed, a refused collection of the reader's, a run
/// of some collections, or a read's refresh leaves it where it was.
@Suite("The last complete sync")
struct CompleteSyncTests {
    private static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A Kinto stand-in with empty collections: `refused` collections answer 403, and a
    /// batch that writes is answered `writeStatus` (201 each, or the whole batch failing).
    private static func server(refusing refused: Set<String> = [], failingWrites: Bool = false) -> FakeHTTPTransport {
        FakeHTTPTransport { request in
            let forbidden = #"{"code":403,"errno":121,"error":"Forbidden","message":"This user cannot access this resource."}"#
            if request.method == .post, request.url.hasSuffix("/batch") {
                let body = try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]
                let requests = body?["requests"] as? [[String: Any]] ?? []
                if failingWrites, requests.contains(where: { ($0["method"] as? String) != "GET" }) {
                    let failure = #"{"code":500,"errno":999,"error":"Internal Server Error","message":"boom"}"#
                    return HTTPResponse(status: 500, headers: ["Content-Type": "application/json"], body: Data(failure.utf8), url: request.url)
                }
                let responses: [[String: Any]] = requests.enumerated().map { index, sub in
                    let path = sub["path"] as? String ?? ""
                    if refused.contains(where: { path.contains("/collections/\($0)/") }) {
                        // NB: `try!` is safe: `forbidden` is a JSON object written above.
                        return ["status": 403, "path": "/v1" + path, "headers": [:], "body": try! JSONSerialization.jsonObject(with: Data(forbidden.utf8))]
                    }
                    if (sub["method"] as? String) == "GET" {
                        return ["status": 200, "path": "/v1" + path, "headers": ["ETag": "\"1\""], "body": ["data": []]]
                    }
                    var data = (sub["body"] as? [String: Any])?["data"] as? [String: Any] ?? [:]
                    data["id"] = path.split(separator: "/").last.map(String.init) ?? ""
                    data["last_modified"] = 1_700_000_000_000 + index
                    return ["status": 201, "path": "/v1" + path, "headers": [:], "body": ["data": data]]
                }
                let json = try JSONSerialization.data(withJSONObject: ["responses": responses])
                return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: json, url: request.url)
            }
            if refused.contains(where: { request.url.contains("/collections/\($0)/") }) {
                return HTTPResponse(status: 403, headers: ["Content-Type": "application/json"], body: Data(forbidden.utf8), url: request.url)
            }
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json", "ETag": "\"1\""], body: Data(#"{"data":[]}"#.utf8), url: request.url)
        }
    }

    private static func engine(_ transport: FakeHTTPTransport, _ store: ShelfStore, at now: Date, _ change: (inout SyncOptions) -> Void = { _ in }) -> SyncEngine {
        let client = APIClient(configuration: .init(baseURL: "http://127.0.0.1:9/v1", credentials: .init(user: "u", password: "p")), transport: transport)
        var options = SyncOptions(retry: .none)
        change(&options)
        return SyncEngine(account: "u", store: store, client: client, options: options, clock: SyncClock(now: { now }, sleep: { _ in }))
    }

    private static func addBook(_ store: ShelfStore, _ id: String) throws {
        _ = try store.write { tx in try tx.saveLocal(.books, id: id, json: Data(#"{"id":"\#(id)","title":"Dune","author_name":"Frank Herbert","finished":false}"#.utf8)) }
    }

    @Test func aRunThatSyncsEverythingIsTheLastSync() async throws {
        let store = try ShelfStore.inMemory()
        try Self.addBook(store, "b1")
        let report = await Self.engine(Self.server(), store, at: Self.start).run()
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(try store.syncStatus().lastSuccess == Self.start)
    }

    @Test func aPushTheServerFailsLeavesTheLastSyncWhereItWas() async throws {
        let store = try ShelfStore.inMemory()
        _ = await Self.engine(Self.server(), store, at: Self.start).run()
        try Self.addBook(store, "b2")

        let report = await Self.engine(Self.server(failingWrites: true), store, at: Self.start.addingTimeInterval(60)).run()

        #expect(report.outcome == .temporaryFailure, "\(report.message)")
        let status = try store.syncStatus()
        #expect(status.lastSuccess == Self.start, "pulled, but the push failed: no sync")
        #expect(status.pendingChanges == 1)
        #expect(try store.read { try $0.syncState(.books).lastSuccess } == Self.start.addingTimeInterval(60), "the pull itself is fresh")
    }

    @Test func partialRunsAreNoSync() async throws {
        let store = try ShelfStore.inMemory()
        let pullOnly = await Self.engine(Self.server(), store, at: Self.start) { $0.pushes = false }.run()
        #expect(pullOnly.outcome == .synced)
        let oneCollection = await Self.engine(Self.server(), store, at: Self.start) { $0.collections = [.books] }.run()
        #expect(oneCollection.outcome == .synced)
        #expect(try store.syncStatus().lastSuccess == nil)
    }

    @Test func aRefusedCollectionOfTheReadersIsNoSync() async throws {
        let store = try ShelfStore.inMemory()
        let report = await Self.engine(Self.server(refusing: ["books", "notes"]), store, at: Self.start).run()
        #expect(report.outcome == .needsAttention, "\(report.message)")
        #expect(try store.syncStatus().lastSuccess == nil)
    }

    @Test func aDeviceWithoutTheKeyOfAnEncryptedAccountSaysSoOnce() async throws {
        let store = try ShelfStore.inMemory()
        try store.write { tx in try tx.setEncryptionState(EncryptionState(isEnabled: true)) }
        let report = await Self.engine(Self.server(), store, at: Self.start).run()
        #expect(report.outcome == .needsAttention, "\(report.message)")
        #expect(report.message == "books, notes, tasks, cart, preferences, sessions: \(WireSealing.lockedReason)", "\(report.message)")
        #expect(report.message.components(separatedBy: "holds no key").count == 2, "one clause, once")
        #expect(try store.syncStatus().lastSuccess == nil)
        let status = try store.syncStatus()
        #expect(status.lastError?.components(separatedBy: "holds no key").count == 2, "\(String(describing: status.lastError))")
    }

    @Test func conflictsAndRefusedChangesWaitBesideALastSync() async throws {
        // A conflict waits for the reader and is counted on its own: the run still
        // pulled everything and sent all it could.
        let store = try ShelfStore.inMemory()
        try store.write { tx in
            try tx.recordConflict(Conflict(collection: .books, recordID: "b1", base: nil, local: nil, remote: nil, remoteLastModified: nil, detectedAt: Self.start))
        }
        let report = await Self.engine(Self.server(), store, at: Self.start).run()
        #expect(report.outcome == .needsAttention, "\(report.message)")
        let status = try store.syncStatus()
        #expect(status.lastSuccess == Self.start)
        #expect(status.conflicts == 1)
    }
}
