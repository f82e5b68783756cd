import Domain
import Foundation
import Testing
import TestSupport
@testable import Storage

/// The store's check, backup and restore primitives, and private file writing.
@Suite("Store maintenance: check, backup, restore")
struct MaintenanceTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    private func storeWithBooks(_ count: Int, at url: URL) throws -> ShelfStore {
        let store = try ShelfStore(location: .file(url))
        _ = try store.write { tx in
            for index in 0..<count {
                try tx.saveLocal(.books, id: "b-\(index)", json: Wire.book("b-\(index)", title: "Book \(index)", author: "A"))
            }
        }
        return store
    }

    @Test func aHealthyStorePassesBothChecks() throws {
        let store = try storeWithBooks(20, at: folder.file("a.sqlite"))
        #expect(try store.checkIntegrity(.quick).isHealthy)
        let full = try IntegrityCheck.check(file: folder.file("a.sqlite"), depth: .full)
        #expect(full.isHealthy)
        #expect(full.schemaVersion == ShelfStore.schemaVersion)
    }

    @Test func aFileThatIsNotADatabaseIsReportedDamagedNotThrown() throws {
        try Data(repeating: 0x5A, count: 4096).write(to: folder.file("junk.sqlite"))
        let report = try IntegrityCheck.check(file: folder.file("junk.sqlite"), depth: .quick)
        #expect(!report.isHealthy)
        #expect(DamagedStoreError(report: report).description.contains(folder.file("junk.sqlite").path))
        #expect(throws: StorageError.self) { try IntegrityCheck.check(file: folder.file("missing.sqlite"), depth: .quick) }
        #expect(!FileManager.default.fileExists(atPath: folder.file("missing.sqlite").path))  // nothing created
    }

    @Test func aBackupNeverOverwritesAndIsPrivate() throws {
        let store = try storeWithBooks(5, at: folder.file("a.sqlite"))
        try Data("mine".utf8).write(to: folder.file("taken"))
        #expect(throws: StorageError.self) { try StoreBackup.backup(store, to: folder.file("taken")) }
        #expect(try String(contentsOf: folder.file("taken"), encoding: .utf8) == "mine")
        try FileManager.default.createSymbolicLink(atPath: folder.file("link").path, withDestinationPath: folder.file("elsewhere").path)
        #expect(throws: StorageError.self) { try StoreBackup.backup(store, to: folder.file("link")) }
        #expect(!FileManager.default.fileExists(atPath: folder.file("elsewhere").path))

        #expect(try StoreBackup.backup(store, to: folder.file("copy.sqlite")).isHealthy)
        let mode = try FileManager.default.attributesOfItem(atPath: folder.file("copy.sqlite").path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(try ShelfStore(location: .file(folder.file("copy.sqlite"))).count(.books()) == 5)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func aRestoreKeepsTheReplacedStoreWithItsLog() throws {
        let live = folder.file("live.sqlite")
        let store = try storeWithBooks(3, at: live)
        _ = try StoreBackup.backup(store, to: folder.file("backup.sqlite"))
        _ = try store.write { tx in try tx.saveLocal(.books, id: "late", json: Wire.book("late", title: "Late", author: "B")) }
        #expect(FileManager.default.fileExists(atPath: live.path + "-wal"))  // the late edit may live only in the WAL

        let restored = try StoreBackup.restore(from: folder.file("backup.sqlite"), to: live, now: Date(timeIntervalSince1970: 1_764_550_263))
        let aside = try #require(restored.replacedStore)
        #expect(aside.lastPathComponent == "live.sqlite.replaced-2025-12-01T005103")
        #expect(try ShelfStore(location: .file(live)).count(.books()) == 3)
        #expect(try ShelfStore(location: .file(aside)).count(.books()) == 4)  // nothing of the replaced store is lost
    }

    @Test func aBackupFromANewerShelfOrOfSomethingElseIsRefused() throws {
        let newer = folder.file("newer.sqlite")
        _ = try storeWithBooks(1, at: newer)
        let connection = try SQLiteConnection(path: newer.path)
        try connection.execute("PRAGMA user_version = 99", operation: "test")
        #expect(throws: StorageError.newerSchema(path: newer.path, found: 99, supported: ShelfStore.schemaVersion)) {
            try StoreBackup.restore(from: newer, to: folder.file("live.sqlite"))
        }
        let empty = folder.file("empty.sqlite")
        try SQLiteConnection(path: empty.path).execute("CREATE TABLE t (x)", operation: "test")
        #expect(throws: StorageError.self) { try StoreBackup.restore(from: empty, to: folder.file("live.sqlite")) }
        #expect(!FileManager.default.fileExists(atPath: folder.file("live.sqlite").path))
    }
}
