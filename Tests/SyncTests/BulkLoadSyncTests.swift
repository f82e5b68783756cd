import Domain
import Foundation
import Services
@testable import Storage
import Sync
import TestSupport
import Testing

/// A first sync of a large collection loads it without the records' id index
/// (`BulkLoad`) and leaves the store with it, whatever the server sends in the meantime.
@Suite("Bulk loads in a first sync")
struct BulkLoadSyncTests {
    private static let base = "http://127.0.0.1:1/v1"
    private static let pageSize = 1500

    private static func json(_ text: String, headers: [(String, String)] = [], url: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")] + headers), body: Data(text.utf8), url: url)
    }

    private static func book(_ id: String, title: String, lastModified: Int) -> String {
        #"{"id":"\#(id)","title":"\#(title)","author_name":"A","finished":false,"last_modified":\#(lastModified)}"#
    }

    /// Books b0…b<n-1> in pages of 1,500, the third page held at `gate`; `again` comes
    /// once more, newer, at the end of the last page (changed on the server during the pull).
    private static func transport(books count: Int, gate: SuspensionGate<Void>, again: String?) -> FakeHTTPTransport {
        FakeHTTPTransport { request in
            let url = request.url
            guard url.contains("/collections/books/") else {
                return Self.json(#"{"data":[]}"#, headers: [("ETag", "\"1\"")], url: url)
            }
            let page = url.components(separatedBy: "_token=").dropFirst().first.flatMap { Int($0) } ?? 0
            if page == 2 { try await gate.pass() }
            let range = (page * pageSize)..<min(count, (page + 1) * pageSize)
            var records = range.map { Self.book("b\($0)", title: "Book \($0)", lastModified: 10 + $0) }
            var headers = [("ETag", "\"\(10 + count)\"")]
            if range.upperBound < count {
                headers.append(("Next-Page", Self.base + "/buckets/default/collections/books/records?_limit=10000&_sort=last_modified&_token=\(page + 1)"))
            } else if let again {
                records.append(Self.book(again, title: "Changed", lastModified: 10 + count))
            }
            return Self.json(#"{"data":[\#(records.joined(separator: ","))]}"#, headers: headers, url: url)
        }
    }

    private func engine(_ transport: FakeHTTPTransport, store: ShelfStore) -> SyncEngine {
        let client = APIClient(configuration: .init(baseURL: Self.base, credentials: .init(user: "u", password: "p")), transport: transport)
        return SyncEngine(
            account: "test", store: store, client: client,
            options: SyncOptions(collections: [.books, .notes], retry: RetryPolicy(maxAttempts: 1)),
            clock: SyncClock(now: { Date(timeIntervalSince1970: 1_800_000_000) }, sleep: { _ in }))
    }

    private func hasIdentityIndex(_ store: ShelfStore) throws -> Bool {
        try store.withConnection { connection throws(StorageError) in try IdentityIndex.isPresent(connection) }
    }

    @Test func theCollectionLoadsWithoutTheIdIndexAndEndsWithIt() async throws {
        // GIVEN 4,000 books in three pages, the last held back, one book sent again in it
        let gate = SuspensionGate<Void>()
        let store = try ShelfStore.inMemory()
        let transport = Self.transport(books: 4000, gate: gate, again: "b17")
        let run = Task { await engine(transport, store: store).run() }

        // WHEN the last page has been asked for, the first ones stored
        await gate.arrival()

        // THEN the store holds them without the id index, and a read by id still works
        #expect(try !hasIdentityIndex(store))
        #expect(try store.record(.books, id: "b1499")?.lastModified == 1509)

        // WHEN the last page arrives
        await gate.open(with: ())
        let report = await run.value

        // THEN every book is there once, b17 in its later version, and the index is back
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(try hasIdentityIndex(store))
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 4000)
        #expect(try store.record(.books, id: "b17")?.lastModified == 4010)
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])
    }

    @Test func anEditWhileTheCollectionLoadsIsKeptAndPushedAfterIt() async throws {
        // GIVEN a first sync held before its last page
        let gate = SuspensionGate<Void>()
        let store = try ShelfStore.inMemory()
        let transport = Self.transport(books: 4000, gate: gate, again: nil)
        let run = Task { await engine(transport, store: store).run() }
        await gate.arrival()

        // WHEN the reader edits a loaded book meanwhile
        try store.write { tx in
            try tx.saveLocal(.books, id: "b3", json: Data(#"{"id":"b3","title":"Mine","author_name":"A","finished":false}"#.utf8))
        }

        // THEN the edit built the index first, and is still waiting once the pull is over
        #expect(try hasIdentityIndex(store))
        await gate.open(with: ())
        _ = await run.value
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == 4000)
        #expect(try store.record(.books, id: "b3")?.json == Data(#"{"id":"b3","title":"Mine","author_name":"A","finished":false}"#.utf8))
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])
    }

    @Test func theOrderIndexesAreLeftToTheNextRun() async throws {
        // GIVEN a first sync of 4,000 books, loaded in bulk
        let gate = SuspensionGate<Void>()
        let store = try ShelfStore.inMemory()
        let transport = Self.transport(books: 4000, gate: gate, again: nil)
        let run = Task { await engine(transport, store: store).run() }
        await gate.open(with: ())
        let first = await run.value
        #expect(first.outcome == .synced, "\(first.message)")

        // THEN the listing index is back, the order indexes are not: a reader sorts meanwhile
        #expect(try store.read { reader in try ListingIndexes.arePresent(reader.db) })
        #expect(try !store.read { try $0.hasOrderIndexes() })

        // WHEN the next run comes (books alone: this server answers no batch)
        let next = await engine(transport, store: store).with { $0.collections = [.books] }.run()

        // THEN it builds them, and the store is whole
        #expect(next.outcome == .synced, "\(next.message)")
        #expect(try store.read { try $0.hasOrderIndexes() })
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])
    }
}
