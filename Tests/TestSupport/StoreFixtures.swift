import Domain
import Foundation
import Records
import Storage
import Synchronization
import Testing

// Records and stores for tests of the store and of the sync rules that write to it.

// MARK: - Temporary folders

/// A fresh folder under the system temp directory, removed when the test ends.
public final class TemporaryDirectory {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("shelf-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name, isDirectory: false)
    }
}

// MARK: - Wire records

/// Records in the Kinto wire shape, built as bytes the way the server sends them.
public enum Wire {
    public static func book(_ id: String, title: String, author: String, finished: Bool = false, lastModified: Int64? = nil) -> Data {
        object(["id": id, "title": title, "author_name": author, "finished": finished, "last_modified": lastModified])
    }

    public static func note(_ id: String, title: String, body: String = "", bookID: String? = nil) -> Data {
        object(["id": id, "book_id": bookID, "title": title, "body": body])
    }

    public static func task(_ id: String, title: String, done: Bool = false) -> Data {
        object(["id": id, "title": title, "done": done])
    }

    public static func remoteBook(_ id: String, title: String, author: String = "Anon", finished: Bool = false, lastModified: Int64) -> RawRecord {
        RawRecord(id: id, lastModified: lastModified, json: book(id, title: title, author: author, finished: finished, lastModified: lastModified))
    }

    public static func tombstone(_ id: String, lastModified: Int64) -> RawRecord {
        RawRecord(id: id, lastModified: lastModified, isDeleted: true,
                     json: Data(#"{"id":"\#(id)","last_modified":\#(lastModified),"deleted":true}"#.utf8))
    }

    /// Books `b<index>` for `range`, stamped `lastModified + index`, with authors and
    /// finished flags that vary: a page the size a test wants.
    public static func books(_ range: Range<Int>, title: String = "Book", lastModified: Int64 = 1000) -> [RawRecord] {
        range.map { index in
            remoteBook(
                "b\(index)", title: "\(title) \(index)", author: index % 3 == 0 ? "Ursula K. Le Guin" : "Émile Zola",
                finished: index % 2 == 0, lastModified: lastModified + Int64(index))
        }
    }

    /// A JSON object with sorted keys; nil values are JSON null (absent `last_modified`
    /// is dropped, as in a record the server has not stored yet).
    public static func object(_ fields: [String: Any?]) -> Data {
        var dictionary: [String: Any] = [:]
        for (key, value) in fields {
            if let value { dictionary[key] = value } else if key != "last_modified" { dictionary[key] = NSNull() }
        }
        // NB: the force try is safe: every value above is a JSON-serializable literal.
        return try! JSONSerialization.data(withJSONObject: dictionary, options: [.sortedKeys])
    }

    /// The seed books of `Fixtures/seed/books.json`, with server timestamps 1000, 1001, …
    public static func seedBooks() throws -> [RawRecord] {
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
    public static func testStore(clock: TestClock = TestClock()) throws -> ShelfStore {
        try ShelfStore.inMemory(configuration: Configuration(clock: clock.clock))
    }

    /// The waiting changes, conflicts included, in push order.
    public func outbox() throws -> [OutboxEntry] {
        try read { reader in try reader.pendingChanges(skippingConflicts: false).map(\.entry) }
    }
}

/// A clock that moves only when the test says so.
public final class TestClock: Sendable {
    private let milliseconds: Mutex<Int64>

    public init(_ start: Int64 = 1_700_000_000_000) {
        milliseconds = Mutex(start)
    }

    public var now: Date { Date(timeIntervalSince1970: Double(milliseconds.withLock { $0 }) / 1000) }

    public func advance(by delta: Int64 = 1000) {
        milliseconds.withLock { $0 += delta }
    }

    /// The clock to inject: this one's "now"; waits return at once.
    public var clock: SyncClock {
        SyncClock(now: { [self] in now }, sleep: { _ in })
    }
}

