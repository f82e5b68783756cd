import Domain
import Foundation
import Services
import Storage
import Sync
import TestSupport

// MARK: - SyncDevice

/// One "device" of a test user: its own local store and sync engine against the
/// shared real Kinto. Two devices of one user are two stores of one account.
struct SyncDevice {
    let store: ShelfStore
    let client: APIClient
    let engine: SyncEngine

    init(
        user: TestUser, server: KintoServer, options: SyncOptions = SyncOptions(retry: .none), clock: SyncClock = .live,
        transport: any HTTPTransport = CurlTransport.shared
    ) throws {
        try self.init(user: user, baseURL: server.baseURL, options: options, clock: clock, transport: transport)
    }

    /// A device that reaches the server at `baseURL` (e.g. through a `FaultProxy`).
    init(
        user: TestUser, baseURL: String, store: ShelfStore? = nil, options: SyncOptions = SyncOptions(retry: .none),
        clock: SyncClock = .live, transport: any HTTPTransport = CurlTransport.shared
    ) throws {
        self.store = try store ?? ShelfStore.inMemory()
        client = APIClient(configuration: .init(
            baseURL: baseURL, credentials: .init(user: user.name, password: user.password),
            timeouts: KintoServer.deviceTimeouts), transport: transport)
        engine = SyncEngine(account: user.name, store: self.store, client: client, options: options, clock: clock)
    }

    // MARK: Local edits

    func saveBook(_ id: String, title: String, author: String = "Frank Herbert", finished: Bool = false) throws {
        let json = #"{"id":"\#(id)","title":"\#(title)","author_name":"\#(author)","finished":\#(finished)}"#
        _ = try store.write { tx in try tx.saveLocal(.books, id: id, json: Data(json.utf8)) }
    }

    /// Changes some fields of a stored book, keeping the others.
    func editBook(_ id: String, _ change: (inout [String: JSONValue]) -> Void) throws {
        var fields = try require(try bookFields(id))
        change(&fields)
        fields.removeValue(forKey: "last_modified")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(fields)
        _ = try store.write { tx in try tx.saveLocal(.books, id: id, json: data) }
    }

    func deleteBook(_ id: String) throws {
        _ = try store.write { tx in try tx.deleteLocal(.books, id: id) }
    }

    // MARK: Reading

    func bookFields(_ id: String) throws -> [String: JSONValue]? {
        guard let record = try store.record(.books, id: id) else { return nil }
        return try JSONDecoder().decode([String: JSONValue].self, from: record.json)
    }

    func title(_ id: String) throws -> String? { try bookFields(id)?["title"]?.stringValue }

    func sync(_ change: ((inout SyncOptions) -> Void)? = nil) async -> RunReport {
        await (change.map { engine.with($0) } ?? engine).run()
    }

    /// The server's copy of a book, read through the API.
    func serverBook(_ id: String) async throws -> [String: JSONValue] {
        try await KintoCollectionService(client: client, collection: .books).record(id: id).fields()
    }
}

/// `#require` outside a test body, for helpers.
private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw SyncTestError.missing }
    return value
}

enum SyncTestError: Error { case missing }
