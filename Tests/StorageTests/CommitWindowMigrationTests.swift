import Domain
import Foundation
import Testing
import TestSupport
@testable import Storage

/// Schema v9: the state a pull that reaches back over the commit window keeps, and a
/// store from before made due for one reconciliation.
@Suite("Schema v9: settled cursor, server clock, reconciliation")
struct CommitWindowMigrationTests {
    @Test func collectionsThatHadSyncedAreDueForAReconciliation() throws {
        // GIVEN a v8 store whose books had synced and whose notes never had
        let folder = try TemporaryDirectory()
        let path = folder.file("v8.sqlite")
        do {
            let connection = try SQLiteConnection(path: path.path)
            try SchemaMigrator.migrate(connection, path: path.path, to: 8)
            try connection.run("INSERT INTO sync_state (collection, cursor) VALUES ('books', 1796135575026)", operation: "seed v8")
            try connection.run("INSERT INTO sync_state (collection, cursor) VALUES ('notes', NULL)", operation: "seed v8")
        }

        // WHEN the store opens it
        let store = try ShelfStore(location: .file(path))

        // THEN books were last reconciled in 1970 (due on the next run), notes never
        let (books, notes) = try store.read { reader in (try reader.syncState(.books), try reader.syncState(.notes)) }
        #expect(books.lastReconciled == Date(timeIntervalSince1970: 0))
        #expect(books.cursor == 1_796_135_575_026)
        #expect(books.settled == nil && books.serverClock == nil)
        #expect(notes.lastReconciled == nil)
    }

    @Test func theNewStateIsKeptAndReadBack() throws {
        let store = try ShelfStore.inMemory()
        let seen = Date(timeIntervalSince1970: 1_800_000_000)
        try store.write { tx in
            try tx.updateSyncState(.books) { state in
                state.cursor = 200
                state.settled = 140
                state.serverClock = ServerClockReading(timestamp: 250, seenAt: seen)
                state.lastReconciled = seen
            }
        }
        let state = try store.read { try $0.syncState(.books) }
        #expect(state.settled == 140)
        #expect(state.serverClock == ServerClockReading(timestamp: 250, seenAt: seen))
        #expect(state.lastReconciled == seen)
    }
}
