import Domain
import Foundation
import Records
import Repositories
import Storage
import Synchronization
import Testing
import TestSupport

// MARK: - Wire records

/// Records in the Kinto wire shape, as the server sends them (`last_modified` included).
enum Wire {
    static func book(_ id: String, title: String, author: String = "Anon", finished: Bool = false, lastModified: Int64 = 1000, extra: [String: Any] = [:]) throws -> RawRecord {
        try record(.books, ["id": id, "title": title, "author_name": author, "finished": finished], lastModified: lastModified, extra: extra)
    }

    static func note(_ id: String, title: String, body: String = "", bookID: String? = nil, lastModified: Int64 = 1000) throws -> RawRecord {
        try record(.notes, ["id": id, "title": title, "body": body, "book_id": bookID ?? NSNull()], lastModified: lastModified)
    }

    static func task(_ id: String, title: String, done: Bool = false, lastModified: Int64 = 1000) throws -> RawRecord {
        try record(.tasks, ["id": id, "title": title, "done": done], lastModified: lastModified)
    }

    static func product(_ id: String, name: String, priceMinor: Int, currency: String = "EUR", lastModified: Int64 = 1000) throws -> RawRecord {
        try record(.products, ["id": id, "name": name, "price_minor": priceMinor, "currency": currency], lastModified: lastModified)
    }

    static func cartLine(_ productID: String, quantity: Int, lastModified: Int64 = 1000) throws -> RawRecord {
        try record(.cart, ["id": productID, "product_id": productID, "quantity": quantity], lastModified: lastModified)
    }

    static func record(_ collection: CollectionName, _ fields: [String: Any], lastModified: Int64, extra: [String: Any] = [:]) throws -> RawRecord {
        var all = fields.merging(extra) { _, new in new }
        all["last_modified"] = lastModified
        let json = try JSONSerialization.data(withJSONObject: all, options: [.sortedKeys])
        return try RawRecord(collection: collection, json: json)
    }

    /// A stored record's JSON as a dictionary, to look at its fields.
    static func fields(_ record: StoredRecord?) throws -> [String: Any] {
        let record = try #require(record)
        return try #require(try JSONSerialization.jsonObject(with: record.json) as? [String: Any])
    }
}

// MARK: - Store helpers

extension ShelfStore {
    /// Stores pulled records as the server has them (`storePulled`), as a pull does
    /// when no local change waits on them.
    func pull(_ records: [RawRecord], into collection: CollectionName) throws {
        try write { transaction in try transaction.storePulled(records, in: collection) }
    }

    /// Records that the sync engine (of any process) finished a collection at `date`.
    func markSynced(_ collection: CollectionName, at date: Date) throws {
        try write { transaction in try transaction.updateSyncState(collection) { $0.lastSuccess = date } }
    }

    func outbox() throws -> [OutboxEntry] {
        try read { reader in try reader.pendingChanges(skippingConflicts: false).map(\.entry) }
    }
}

// MARK: - Harness

/// One account's store, a fake sync engine, and a clock the test moves.
struct Harness {
    let store: ShelfStore
    let refresher = FakeCollectionRefresher()
    let clock = ManualClock()
    let configuration: RepositoryConfiguration

    /// - Parameters:
    ///   - policy: the policy of every collection (reader data and catalog alike).
    ///   - onEvent: what the repositories report.
    init(
        store: ShelfStore? = nil,
        policy: FreshnessPolicy = FreshnessPolicy(maxAge: .seconds(120)),
        onEvent: @escaping @Sendable (RepositoryEvent) -> Void = { _ in }
    ) throws {
        self.store = try store ?? ShelfStore.inMemory()
        configuration = RepositoryConfiguration(
            readerPolicy: policy, catalogPolicy: policy, clock: clock.clock,
            newID: .sequential(), onEvent: onEvent)
    }

    var repositories: AccountRepositories {
        AccountRepositories(store: store, refresher: refresher, configuration: configuration)
    }

    func books() -> BookRepository {
        BookRepository(store: store, refresher: refresher, configuration: configuration)
    }
}

extension RecordIDGenerator {
    /// `id-1`, `id-2`, … — predictable ids for tests.
    static func sequential(prefix: String = "id") -> RecordIDGenerator {
        let counter = Mutex(0)
        return RecordIDGenerator {
            let number = counter.withLock { value in
                value += 1
                return value
            }
            return "\(prefix)-\(number)"
        }
    }
}

/// The titles of books, in order, for short expectations.
func titles(_ books: [Book]) -> [String] {
    books.map(\.title)
}
