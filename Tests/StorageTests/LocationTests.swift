import Domain
import Foundation
import Testing
import TestSupport
@testable import Storage

@Suite("Database location and permissions")
struct LocationTests {
    private func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func anAccountLivesUnderXDGDataHomeWithPrivateModes() throws {
        let folder = try TemporaryDirectory()
        let environment = ["XDG_DATA_HOME": folder.url.path, "HOME": "/nonexistent"]

        let store = try ShelfStore(account: AccountName("alice@example.org"), environment: environment)
        try store.write { tx in try tx.saveLocal(.books, id: "b1", json: Wire.book("b1", title: "Dune", author: "Frank Herbert")) }

        let directory = folder.url.appendingPathComponent("shelf").path
        let file = directory + "/alice@example.org.sqlite"
        #expect(store.location == .file(URL(fileURLWithPath: file)))
        #expect(try mode(directory) == 0o700)
        #expect(try mode(file) == 0o600)
        // The store is open and has written, so SQLite's WAL companions exist now.
        #expect(try mode(file + "-wal") == 0o600)
        #expect(try mode(file + "-shm") == 0o600)
    }

    @Test func anExistingDataFolderAndFileAreMadePrivate() throws {
        let folder = try TemporaryDirectory()
        let directory = folder.url.appendingPathComponent("shelf")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let environment = ["XDG_DATA_HOME": folder.url.path]
        do { _ = try ShelfStore(account: AccountName("bob"), environment: environment) }
        let file = directory.appendingPathComponent("bob.sqlite").path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)

        _ = try ShelfStore(account: AccountName("bob"), environment: environment)

        #expect(try mode(directory.path) == 0o700)
        #expect(try mode(file) == 0o600)
    }

    @Test func withoutXDGDataHomeTheFolderIsUnderHome() {
        let url = StoreLocation.dataDirectory(environment: ["HOME": "/home/reader"])
        #expect(url.path == "/home/reader/.local/share/shelf")
    }

    @Test(arguments: ["", "relative/path"])
    func anEmptyOrRelativeXDGDataHomeIsIgnored(_ value: String) {
        let url = StoreLocation.dataDirectory(environment: ["XDG_DATA_HOME": value, "HOME": "/home/reader"])
        #expect(url.path == "/home/reader/.local/share/shelf")
    }

    @Test func accountFilesAreNamedAfterTheAccount() throws {
        let location = StoreLocation.account(try AccountName("work.reader_2"), environment: ["XDG_DATA_HOME": "/data"])
        #expect(location == .file(URL(fileURLWithPath: "/data/shelf/work.reader_2.sqlite")))
    }

    @Test(arguments: ["", "..", ".", "../evil", "a/b", "/etc/passwd", ".hidden", "nul\0byte", "spa ce", "ünï", String(repeating: "a", count: 129)])
    func unsafeAccountNamesAreRefused(_ name: String) {
        #expect(throws: StorageError.self) { try AccountName(name) }
    }

    @Test(arguments: ["alice", "alice@example.org", "reader+test", "A-1_b.c"])
    func safeAccountNamesAreAccepted(_ name: String) throws {
        #expect(try AccountName(name).rawValue == name)
    }

    @Test func anExplicitPathInAMissingFolderIsCreated() throws {
        let folder = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("deeper/still/db.sqlite")
        _ = try ShelfStore(location: .file(path))
        #expect(FileManager.default.fileExists(atPath: path.path))
        #expect(try mode(path.path) == 0o600)
    }

    @Test func readersMapTheFileAndTheDefaultDoesNot() throws {
        let folder = try TemporaryDirectory()
        func mapped(_ configuration: ShelfStore.Configuration, _ name: String) throws -> Int? {
            let store = try ShelfStore(location: .file(folder.url.appendingPathComponent(name)), configuration: configuration)
            return try store.read { reader in
                try reader.db.queryFirst("PRAGMA mmap_size", operation: "read mmap_size") { row in row.int(0) }
            }
        }
        #expect(try mapped(ShelfStore.Configuration.reader, "reader.sqlite") == 256 * 1024 * 1024)
        #expect(try mapped(ShelfStore.Configuration(), "default.sqlite") == 0, "a sync keeps the table out of its resident memory")
        #expect(try mapped(ShelfStore.Configuration(memoryMapBytes: 0), "off.sqlite") == 0)
    }

    @Test func theInMemoryStoreRunsTheSameSchema() throws {
        let store = try ShelfStore.inMemory()
        #expect(store.location == .memory)
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])
        try store.write { tx in try tx.saveLocal(.tasks, id: "t1", json: Wire.task("t1", title: "Read")) }
        #expect(try store.read { try $0.count(RecordQuery(.tasks, complete: false)) } == 1)
    }
}
