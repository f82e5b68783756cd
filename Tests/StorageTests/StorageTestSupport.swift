import Domain
import Foundation
import Records
import Synchronization
import Testing
import TestSupport
@testable import Storage

// MARK: - Temporary folders

/// A fresh folder under the system temp directory, removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("shelf-storage-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name, isDirectory: false)
    }
}

// MARK: - Wire records

/// Records in the Kinto wire shape, built as bytes the way the server sends them.
enum Wire {
    static func book(_ id: String, title: String, author: String, finished: Bool = false, lastModified: Int64? = nil) -> Data {
        object(["id": id, "title": title, "author_name": author, "finished": finished, "last_modified": lastModified])
    }

    static func note(_ id: String, title: String, body: String = "", bookID: String? = nil) -> Data {
        object(["id": id, "book_id": bookID, "title": title, "body": body])
    }

    static func task(_ id: String, title: String, done: Bool = false) -> Data {
        object(["id": id, "title": title, "done": done])
    }

    static func remoteBook(_ id: String, title: String, author: String = "Anon", finished: Bool = false, lastModified: Int64) -> RawRecord {
        RawRecord(id: id, lastModified: lastModified, json: book(id, title: title, author: author, finished: finished, lastModified: lastModified))
    }

    static func tombstone(_ id: String, lastModified: Int64) -> RawRecord {
        RawRecord(id: id, lastModified: lastModified, isDeleted: true,
                     json: Data(#"{"id":"\#(id)","last_modified":\#(lastModified),"deleted":true}"#.utf8))
    }

    /// A JSON object with sorted keys; nil values are JSON null (absent `last_modified`
    /// is dropped, as in a record the server has not stored yet).
    static func object(_ fields: [String: Any?]) -> Data {
        var dictionary: [String: Any] = [:]
        for (key, value) in fields {
            if let value { dictionary[key] = value } else if key != "last_modified" { dictionary[key] = NSNull() }
        }
        // NB: the force try is safe: every value above is a JSON-serializable literal.
        return try! JSONSerialization.data(withJSONObject: dictionary, options: [.sortedKeys])
    }

    /// The seed books of `Fixtures/seed/books.json`, with server timestamps 1000, 1001, …
    static func seedBooks() throws -> [RawRecord] {
        let array = try #require(try JSONSerialization.jsonObject(with: FixtureFiles.data("seed/books.json")) as? [[String: Any]])
        return try array.enumerated().map { offset, fields in
            var fields = fields
            let lastModified = Int64(1000 + offset)
            fields["last_modified"] = lastModified
            let json = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
            return try RawRecord(collection: .books, json: json)
        }
    }
}

// MARK: - Store helpers

extension ShelfStore {
    /// An in-memory store whose clock the test controls.
    static func testStore(clock: TestClock = TestClock(), faults: FaultInjection = FaultInjection()) throws -> ShelfStore {
        var configuration = Configuration(clock: { clock.now })
        configuration.faults = faults
        return try ShelfStore.inMemory(configuration: configuration)
    }

    /// Applies pulled records, expecting none to be held back.
    func applyRemote(_ records: [RawRecord], to collection: CollectionName) throws {
        let held = try write { tx in try tx.applyRemote(records, to: collection).map(\.record.id) }
        #expect(held.isEmpty)
    }

    func outbox() throws -> [OutboxEntry] {
        try read { reader in try reader.pendingChanges(skippingConflicts: false).map(\.entry) }
    }
}

/// A clock that moves only when the test says so.
final class TestClock: Sendable {
    private let milliseconds: Mutex<Int64>

    init(_ start: Int64 = 1_700_000_000_000) {
        milliseconds = Mutex(start)
    }

    var now: Date { Date(milliseconds: milliseconds.withLock { $0 }) }

    func advance(by delta: Int64 = 1000) {
        milliseconds.withLock { $0 += delta }
    }
}

/// The failure a test injects into a store operation.
let injectedFailure = StorageError.sqlite(operation: "injected failure", code: 10, message: "disk I/O error (test)")
