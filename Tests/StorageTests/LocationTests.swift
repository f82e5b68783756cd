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

        let store = try ShelfStore(account: AccountName("alice@example.org"), paths: ShelfPaths(environment: environment))
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
        do { _ = try ShelfStore(account: AccountName("bob"), paths: ShelfPaths(environment: environment)) }
        let file = directory.appendingPathComponent("bob.sqlite").path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)

        _ = try ShelfStore(account: AccountName("bob"), paths: ShelfPaths(environment: environment))

        #expect(try mode(directory.path) == 0o700)
        #expect(try mode(file) == 0o600)
    }

    struct PathsCase: Sendable, CustomTestStringConvertible {
        let name: String
        let environment: [String: String]
        let config: String
        let data: String
        var testDescription: String { name }
    }

    /// The one rule for Shelf's folders: an XDG variable when absolute, else under `HOME`.
    static let pathsCases: [PathsCase] = [
        PathsCase(name: "both XDG variables", environment: ["XDG_CONFIG_HOME": "/cfg", "XDG_DATA_HOME": "/data", "HOME": "/home/reader"],
                  config: "/cfg/shelf", data: "/data/shelf"),
        PathsCase(name: "neither: under HOME", environment: ["HOME": "/home/reader"],
                  config: "/home/reader/.config/shelf", data: "/home/reader/.local/share/shelf"),
        PathsCase(name: "empty XDG variables are ignored", environment: ["XDG_CONFIG_HOME": "", "XDG_DATA_HOME": "", "HOME": "/home/reader"],
                  config: "/home/reader/.config/shelf", data: "/home/reader/.local/share/shelf"),
        PathsCase(name: "relative XDG variables are ignored",
                  environment: ["XDG_CONFIG_HOME": "relative/cfg", "XDG_DATA_HOME": "relative/path", "HOME": "/home/reader"],
                  config: "/home/reader/.config/shelf", data: "/home/reader/.local/share/shelf"),
        PathsCase(name: "one of each", environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/reader"],
                  config: "/home/reader/.config/shelf", data: "/data/shelf"),
    ]

    @Test(arguments: pathsCases)
    func shelfsFoldersFollowTheXDGRule(_ item: PathsCase) {
        let paths = ShelfPaths(environment: item.environment)
        #expect(paths.configDirectory.path == item.config)
        #expect(paths.dataDirectory.path == item.data)
        #expect(paths.keysDirectory.path == item.data + "/keys")
    }

    /// A relative or missing `HOME` falls back to the user's home from the system.
    @Test(arguments: [["HOME": "relative"], [:]])
    func withoutAnAbsoluteHomeTheUsersHomeIsUsed(_ environment: [String: String]) {
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        let paths = ShelfPaths(environment: environment)
        #expect(paths.configDirectory.path == URL(fileURLWithPath: home).appendingPathComponent(".config/shelf").path)
        #expect(paths.dataDirectory.path == URL(fileURLWithPath: home).appendingPathComponent(".local/share/shelf").path)
    }

    @Test func accountFilesAreNamedAfterTheAccount() throws {
        let paths = ShelfPaths(environment: ["XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/cfg"])
        let name = try AccountName("work.reader_2")
        #expect(paths.database(name) == .file(URL(fileURLWithPath: "/data/shelf/work.reader_2.sqlite")))
        #expect(paths.accountFile(name).path == "/cfg/shelf/accounts/work.reader_2.json")
        #expect(paths.syncLock(name).path == "/data/shelf/work.reader_2.lock")
        #expect(paths.keyFile(name).path == "/data/shelf/keys/work.reader_2.key")
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
