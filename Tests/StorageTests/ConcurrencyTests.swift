import Domain
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Storage

@Suite("Sharing a store")
struct ConcurrencyTests {
    @Test func manyTasksEditThroughOneStore() async throws {
        let store = try ShelfStore.inMemory()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<50 {
                        let id = "t-\(worker)-\(index)"
                        try store.write { tx in try tx.saveLocal(.tasks, id: id, json: Wire.task(id, title: "Task \(index)")) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.read { try $0.count(RecordQuery(.tasks)) } == 400)
        #expect(try store.read { try $0.pendingCount() } == 400)
        let sequences = try store.outbox().map(\.sequence)
        #expect(Set(sequences).count == 400)
    }

    // MARK: Opening while another connection holds the file

    /// SQLite can refuse the switch to WAL at once, without its busy timeout (a device's
    /// first sync and an edit opening a new store together): opening retries it.
    @Test func openingRetriesALockRefusedAtOnce() throws {
        let attempts = Mutex(0)
        var configuration = ShelfStore.Configuration()
        configuration.faults.beforeConfigure = { (attempt: Int) throws(StorageError) in
            attempts.withLock { $0 = attempt }
            if attempt < 4 { throw .sqlite(operation: "configure connection", code: 5, message: "database is locked") }
        }
        let folder = try TemporaryDirectory()
        let store = try ShelfStore(location: .file(folder.file("new.sqlite")), configuration: configuration)
        #expect(attempts.withLock { $0 } == 4)
        try store.write { tx in try tx.saveLocal(.tasks, id: "t", json: Wire.task("t", title: "Read")) }
        #expect(try store.read { try $0.pendingCount() } == 1)
    }

    /// The retries end with the busy timeout, as a busy error; other errors are not retried.
    @Test func openingGivesUpWhenTheBusyTimeoutRunsOut() throws {
        let attempts = Mutex(0)
        var configuration = ShelfStore.Configuration(busyTimeout: .milliseconds(100))
        configuration.faults.beforeConfigure = { (attempt: Int) throws(StorageError) in
            attempts.withLock { $0 = attempt }
            throw .sqlite(operation: "configure connection", code: 5, message: "database is locked")
        }
        let folder = try TemporaryDirectory()
        let started = ContinuousClock.now
        #expect { try ShelfStore(location: .file(folder.file("a.sqlite")), configuration: configuration) } throws: { error in
            (error as? StorageError)?.isBusy == true
        }
        #expect(ContinuousClock.now - started < .seconds(30), "gives up near the 100 ms busy timeout, not never")
        #expect(attempts.withLock { $0 } > 1)

        attempts.withLock { $0 = 0 }
        configuration.faults.beforeConfigure = { (attempt: Int) throws(StorageError) in
            attempts.withLock { $0 = attempt }
            throw .sqlite(operation: "configure connection", code: 26, message: "file is not a database")
        }
        #expect(throws: StorageError.self) { try ShelfStore(location: .file(folder.file("b.sqlite")), configuration: configuration) }
        #expect(attempts.withLock { $0 } == 1)
    }

    @Test func twoConnectionsToOneFileWaitForEachOther() async throws {
        // Like the CLI and the cron worker: two stores on one file, writing at once.
        let folder = try TemporaryDirectory()
        let path = folder.file("shared.sqlite")
        let first = try ShelfStore(location: .file(path))
        let second = try ShelfStore(location: .file(path))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, store) in [("a", first), ("b", second)] {
                group.addTask {
                    for index in 0..<100 {
                        let id = "\(name)-\(index)"
                        try store.write { tx in try tx.saveLocal(.notes, id: id, json: Wire.note(id, title: "Note \(index)")) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try first.read { try $0.count(RecordQuery(.notes)) } == 200)
        #expect(try second.read { try $0.pendingCount() } == 200)
    }
}
