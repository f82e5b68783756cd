@testable import Encryption
import Foundation
import Testing

@Suite("The local key file")
struct LocalKeyStoreTests {
    let scratch: ScratchFolder
    let store: LocalKeyStore

    init() throws {
        scratch = try ScratchFolder()
        store = LocalKeyStore(path: scratch.path("keys/reader.key"))
    }

    private func mode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func aSavedKeyringLoadsWithEveryKeyInOrder() throws {
        defer { scratch.remove() }
        let ring = Keyring(current: try DataKey.generate()).rotated(to: try DataKey.generate()).rotated(to: try DataKey.generate())
        try store.save(ring)
        let loaded = try #require(try store.load())
        #expect(loaded.keys.map(\.id) == ring.keys.map(\.id))
        #expect(zip(loaded.keys, ring.keys).allSatisfy { $0.hasSameBytes(as: $1) })
    }

    @Test func theFileIs0600InA0700Folder() throws {
        defer { scratch.remove() }
        try store.save(Keyring(current: try DataKey.generate()))
        #expect(try mode(store.path) == 0o600)
        #expect(try mode(scratch.path("keys")) == 0o700)
    }

    @Test func noFileMeansLocked() throws {
        defer { scratch.remove() }
        #expect(try store.load() == nil)
        #expect(try store.remove() == false)
    }

    @Test func removeLocks() throws {
        defer { scratch.remove() }
        try store.save(Keyring(current: try DataKey.generate()))
        #expect(try store.remove() == true)
        #expect(try store.load() == nil)
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }

    @Test func aSaveReplacesTheFileWhole() throws {
        defer { scratch.remove() }
        try store.save(Keyring(current: try DataKey.generate()))
        let before = try FileManager.default.attributesOfItem(atPath: store.path)[.systemFileNumber] as? NSNumber
        let next = try DataKey.generate()
        try store.save(Keyring(current: next))
        let after = try FileManager.default.attributesOfItem(atPath: store.path)[.systemFileNumber] as? NSNumber
        #expect(before != after, "a new file renamed over the old one, not the old one rewritten")
        #expect(try store.load()?.current.id == next.id)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("keys")) == ["reader.key"])
    }

    @Test func aSymbolicLinkIsRefused() throws {
        defer { scratch.remove() }
        let elsewhere = LocalKeyStore(path: scratch.path("keys/real.key"))
        try elsewhere.save(Keyring(current: try DataKey.generate()))
        try FileManager.default.createSymbolicLink(atPath: store.path, withDestinationPath: elsewhere.path)
        #expect(throws: EncryptionError.keyFile(path: store.path, problem: .symbolicLink)) { try store.load() }
    }

    /// A link planted where the key file goes is replaced, never written through.
    @Test func aSaveNeverWritesThroughALink() throws {
        defer { scratch.remove() }
        let victim = try scratch.write("someone else's file", to: "victim", mode: 0o644)
        try FileManager.default.createDirectory(atPath: scratch.path("keys"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(atPath: store.path, withDestinationPath: victim)
        try store.save(Keyring(current: try DataKey.generate()))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "someone else's file")
        #expect(try FileManager.default.attributesOfItem(atPath: store.path)[.type] as? FileAttributeType == .typeRegular)
        #expect(try store.load() != nil)
    }

    @Test func aFileOthersCanReadIsRefused() throws {
        defer { scratch.remove() }
        try store.save(Keyring(current: try DataKey.generate()))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.path)
        #expect(throws: EncryptionError.keyFile(path: store.path, problem: .permissionsTooOpen(mode: "644"))) { try store.load() }
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func anotherUsersFileIsRefused() throws {
        defer { scratch.remove() }
        try store.save(Keyring(current: try DataKey.generate()))
        #expect(chown(store.path, 65534, 65534) == 0)
        #expect(throws: EncryptionError.keyFile(path: store.path, problem: .notOwnedByUser(owner: 65534))) { try store.load() }
    }

    @Test func aFolderOthersCanEnterIsRefused() throws {
        defer { scratch.remove() }
        try store.save(Keyring(current: try DataKey.generate()))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path("keys"))
        #expect(throws: EncryptionError.keyFile(path: store.path, problem: .unsafeDirectory(reason: "mode 755; use chmod 700"))) {
            try store.save(Keyring(current: try DataKey.generate()))
        }
    }

    /// The folder is checked at every read, not only when the key was written: a folder
    /// opened to others since could have let someone swap the file.
    @Test func aFolderOpenedToOthersAfterTheKeyWasWrittenIsRefusedWhenReading() throws {
        defer { scratch.remove() }
        try store.save(Keyring(current: try DataKey.generate()))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path("keys"))
        #expect(throws: EncryptionError.keyFile(path: store.path, problem: .unsafeDirectory(reason: "mode 755; use chmod 700"))) {
            try store.load()
        }
    }

    /// A FIFO at the key's path would hold an open for ever (it waits for a writer), and a
    /// device node could feed a read without end: both are refused before a byte is read.
    @Test func aFIFOAtTheKeysPathIsRefusedWithoutWaiting() throws {
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.path("keys"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        #expect(mkfifo(store.path, 0o600) == 0)
        let started = ContinuousClock.now
        #expect(throws: EncryptionError.keyFile(path: store.path, problem: .notRegularFile)) { try store.load() }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func aFolderThatIsALinkIsRefused() throws {
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.path("real"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(atPath: scratch.path("keys"), withDestinationPath: scratch.path("real"))
        #expect(throws: EncryptionError.self) { try store.save(Keyring(current: try DataKey.generate())) }
    }

    @Test func aFileShelfDidNotWriteIsMalformed() throws {
        defer { scratch.remove() }
        try scratch.write("not a key file", to: "keys/reader.key", mode: 0o600)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: scratch.path("keys"))
        #expect(throws: EncryptionError.malformed(reason: "the key file is not one Shelf wrote")) { try store.load() }
    }

    @Test func aDirectoryWhereTheFileShouldBeIsRefused() throws {
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: store.path, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: scratch.path("keys"))
        #expect(throws: EncryptionError.keyFile(path: store.path, problem: .notRegularFile)) { try store.load() }
    }
}
