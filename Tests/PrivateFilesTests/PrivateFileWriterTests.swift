import Foundation
import PrivateFiles
import Testing

/// The one private-file writer: the mode it leaves whatever the umask, an atomic replace
/// that leaves nothing behind, and what it does with a link, a FIFO or a folder planted
/// at the target.
@Suite("Private files")
struct PrivateFileWriterTests {
    let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("private-files-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    private func mode(_ path: String) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    private func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// A new file is 0600. NB: the umask is not varied here: it is the process's, and
    /// other suites create files at the same time.
    @Test func aWrittenFileIsModeSixHundred() throws {
        let path = folder + "/config.json"
        try PrivateFileWriter.write(Data("{}\n".utf8), to: path)
        #expect(try mode(path) == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}\n")
    }

    /// The old content is replaced by a rename: a new inode, the new bytes, nothing else
    /// left in the folder.
    @Test func aWriteReplacesTheOldFileAtomically() throws {
        let path = folder + "/account.json"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        var before = stat()
        stat(path, &before)
        try PrivateFileWriter.write(Data("new\n".utf8), to: path)
        var after = stat()
        stat(path, &after)
        #expect(before.st_ino != after.st_ino, "a new file renamed over the old one, not the old one rewritten")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        #expect(try mode(path) == 0o600)
        #expect(try entries() == ["account.json"], "no temporary file left")
    }

    /// A link planted at the target is replaced by the file; what it pointed to is untouched.
    @Test func aSymlinkAtTheTargetIsReplacedNotFollowed() throws {
        let victim = folder + "/victim"
        try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: folder + "/report.json", withDestinationPath: victim)
        try PrivateFileWriter.write(Data("{}\n".utf8), to: folder + "/report.json")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "theirs\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/report.json")
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(try mode(folder + "/report.json") == 0o600)
    }

    /// A FIFO at the target is never opened (which would wait for a reader): it is replaced.
    @Test func aFIFOAtTheTargetIsReplacedWithoutBeingOpened() throws {
        let path = folder + "/key"
        #expect(mkfifo(path, 0o600) == 0)
        try PrivateFileWriter.write(Data("k".utf8), to: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "k")
    }

    /// A folder at the target is refused before anything is written.
    @Test func aFolderAtTheTargetIsRefused() throws {
        let path = folder + "/export.json"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let error = try #require(throws: PrivateFileError.self) { try PrivateFileWriter.write(Data("x".utf8), to: path) }
        #expect(error.errno == EISDIR)
        #expect(try entries() == ["export.json"])
    }

    /// A write that cannot start (a folder that is gone) throws the call and the path.
    @Test func aFailedWriteSaysWhichCallFailedAndWhere() throws {
        let missing = folder + "/gone/config.json"
        let error = try #require(throws: PrivateFileError.self) { try PrivateFileWriter.write(Data("x".utf8), to: missing) }
        #expect(error.call == "open" && error.errno == ENOENT, "\(error)")
        #expect(error.description.contains("gone"))
    }

    /// The temporary file a backup is copied into: empty, 0600, beside the target, hidden.
    @Test func aTemporaryFileIsEmptyPrivateAndBesideItsTarget() throws {
        let temporary = try PrivateFileWriter.createTemporary(near: folder + "/store.sqlite")
        #expect(URL(fileURLWithPath: temporary).deletingLastPathComponent().path == URL(fileURLWithPath: folder).path)
        #expect(URL(fileURLWithPath: temporary).lastPathComponent.hasPrefix(".store.sqlite."))
        #expect(try mode(temporary) == 0o600)
        #expect(try Data(contentsOf: URL(fileURLWithPath: temporary)).isEmpty)
    }
}
