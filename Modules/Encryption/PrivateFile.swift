import Foundation
import PrivateFiles

// MARK: - PrivateFile

/// The file operations behind the local key file and the passphrase file, in plain
/// POSIX calls so each check is made on the file actually opened, not on a path that
/// could be swapped between a check and a use.
enum PrivateFile {
    /// What a read insists on.
    struct ReadPolicy {
        /// Refuse a symbolic link at the path (`O_NOFOLLOW`).
        var refusesLinks: Bool
        /// Refuse a file another user owns.
        var requiresOwner: Bool
        /// Refuse group or other permission bits.
        var requiresPrivateMode: Bool
        /// Refuse the file unless its folder is this user's own 0700 folder, checked at
        /// every read: a folder opened to others since the file was written could have let
        /// someone swap the file.
        var requiresPrivateDirectory = false

        /// The local key file: Shelf wrote it, so anything else is refused.
        static let keyFile = ReadPolicy(refusesLinks: true, requiresOwner: true, requiresPrivateMode: true, requiresPrivateDirectory: true)
        /// `SHELF_PASSPHRASE_FILE`: a person's file, perhaps a link into a secrets mount;
        /// the file it leads to must be private.
        static let passphraseFile = ReadPolicy(refusesLinks: false, requiresOwner: false, requiresPrivateMode: true)
        /// A systemd credential: systemd makes it private to the service (its folder is
        /// the service's only) and sets its mode and owner itself, sometimes through ACLs.
        static let credential = ReadPolicy(refusesLinks: true, requiresOwner: false, requiresPrivateMode: false)
    }

    // MARK: - Reading

    /// The whole file in secure memory, at most `maximumBytes`; nil when it does not exist.
    ///
    /// NB: opened with `O_NONBLOCK`, so a FIFO or a device node planted at the path cannot
    /// hold the open (a FIFO waits for a writer) or feed a read without end: `fstat` then
    /// refuses anything but a regular file before a byte is read, and a regular file
    /// ignores the flag.
    static func contents(_ path: String, policy: ReadPolicy, maximumBytes: Int) throws(FileProblem) -> SecretBytes? {
        if policy.requiresPrivateDirectory {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var status = stat()
            if lstat(directory, &status) != 0 {
                if errno == ENOENT { return nil }
                throw systemProblem("lstat")
            }
            try checkPrivateDirectory(status)
        }
        let flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (policy.refusesLinks ? O_NOFOLLOW : 0)
        let fd = open(path, flags)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return nil
            case ELOOP where policy.refusesLinks: throw .symbolicLink
            default: throw systemProblem("open")
            }
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw systemProblem("fstat") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile }
        if policy.requiresOwner, status.st_uid != geteuid() { throw .notOwnedByUser(owner: status.st_uid) }
        if policy.requiresPrivateMode, status.st_mode & 0o077 != 0 {
            throw .permissionsTooOpen(mode: String(status.st_mode & 0o7777, radix: 8))
        }
        return try readAll(fd, maximumBytes: maximumBytes)
    }

    /// Reads to the end into secure memory: one byte more than allowed proves too much.
    private static func readAll(_ fd: Int32, maximumBytes: Int) throws(FileProblem) -> SecretBytes {
        var total = 0
        var failure: FileProblem?
        let buffer: SecretBytes
        do {
            buffer = try SecretBytes.make(count: maximumBytes + 1) { start, capacity in
                while total < capacity, failure == nil {
                    let count = read(fd, start + total, capacity - total)
                    if count > 0 { total += count } else if count == 0 { break } else if errno != EINTR {
                        failure = systemProblem("read")
                    }
                }
            }
        } catch {
            throw .system(call: "sodium_malloc", reason: error.description)
        }
        if let failure { throw failure }
        guard total <= maximumBytes else { throw .tooLarge(limit: maximumBytes) }
        do {
            return try buffer.prefix(total)
        } catch {
            throw .system(call: "sodium_malloc", reason: error.description)
        }
    }

    // MARK: - Writing

    /// Writes `bytes` in this user's private folder (created 0700 when missing), through
    /// `PrivateFileWriter`: a new 0600 file beside the old one, renamed over it.
    static func writeAtomically(_ bytes: SecretBytes, to path: String) throws(FileProblem) {
        try ensurePrivateDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        do throws(PrivateFileError) {
            try bytes.withUnsafeBytes { (buffer) throws(PrivateFileError) in try PrivateFileWriter.write(buffer, to: path) }
        } catch {
            throw .system(call: error.call, reason: error.reason)
        }
    }

    /// Removes the file; false when there was none.
    static func remove(_ path: String) throws(FileProblem) -> Bool {
        guard unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw systemProblem("unlink")
        }
        syncDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        return true
    }

    // MARK: - The folder

    /// Creates the folder (0700, its parents as `mkdir -p` would) when missing, and
    /// refuses one that is a link, someone else's, or open to others.
    static func ensurePrivateDirectory(_ path: String) throws(FileProblem) {
        var status = stat()
        if lstat(path, &status) != 0 {
            guard errno == ENOENT else { throw systemProblem("lstat") }
            let parent = URL(fileURLWithPath: path).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            } catch {
                throw .unsafeDirectory(reason: "its parent cannot be created")
            }
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw systemProblem("mkdir") }
            guard lstat(path, &status) == 0 else { throw systemProblem("lstat") }
        }
        try checkPrivateDirectory(status)
    }

    /// A folder (as `lstat` saw it) that is not a link, is this user's and is open to no one else.
    private static func checkPrivateDirectory(_ status: stat) throws(FileProblem) {
        guard status.st_mode & S_IFMT == S_IFDIR else { throw .unsafeDirectory(reason: "not a folder (or a link to one)") }
        guard status.st_uid == geteuid() else { throw .unsafeDirectory(reason: "owned by uid \(status.st_uid)") }
        guard status.st_mode & 0o077 == 0 else {
            throw .unsafeDirectory(reason: "mode \(String(status.st_mode & 0o7777, radix: 8)); use chmod 700")
        }
    }

    /// Makes a rename or unlink durable; a failure here loses no data, so it is not one.
    private static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    private static func systemProblem(_ call: String) -> FileProblem {
        .system(call: call, reason: String(cString: strerror(errno)))
    }
}
