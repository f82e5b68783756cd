import Foundation

// MARK: - PrivateFileWriter

/// The one way Shelf writes a file only its owner may read — an account's config, the
/// server's capabilities, the local key file, an export, a worker report, a store's
/// health mark: mode 0600 whatever the umask, and replaced atomically, so a reader sees
/// the old content or the new, never half of it and never with looser permissions.
///
/// The bytes go to a new file beside the target (same file system), created with
/// `O_CREAT | O_EXCL | O_NOFOLLOW` — never an existing file or a link planted under the
/// temporary name — made exactly 0600 with `fchmod`, written, `fsync`ed, and renamed
/// over the target; the folder is then `fsync`ed so the rename survives a power cut.
/// `rename(2)` replaces whatever is at the target itself (a link, a FIFO), never what a
/// link points to. A folder at the target is refused before anything is written.
///
/// The folder must exist: each caller decides how its folder is made and checked (a
/// private 0700 folder of Shelf's own, or the one a person chose for an export).
public enum PrivateFileWriter {
    /// The mode of every file written here.
    public static let mode: mode_t = 0o600

    /// Replaces the file at `path` with `data`.
    public static func write(_ data: Data, to path: String) throws(PrivateFileError) {
        var failure: PrivateFileError?
        data.withUnsafeBytes { buffer in
            do throws(PrivateFileError) {
                try write(buffer, to: path)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Replaces the file at `path` with `bytes` (for secrets kept in memory of their own).
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(PrivateFileError) {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw PrivateFileError(call: "open", path: path, errno: EISDIR)
        }
        let (temporary, fd) = try openTemporary(near: path)
        var failure: PrivateFileError?
        var offset = 0
        while offset < bytes.count, failure == nil {
            // NB: `baseAddress!` is safe: the loop runs only for a non-empty buffer.
            let count = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if count > 0 {
                offset += count
            } else if errno != EINTR {
                failure = PrivateFileError(call: "write", path: temporary, errno: errno)
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = PrivateFileError(call: "fsync", path: temporary, errno: errno) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = PrivateFileError(call: "rename", path: path, errno: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        syncFolder(of: path)
    }

    /// Creates a new, empty 0600 file with a unique hidden name in `path`'s folder, to be
    /// filled and later renamed over `path` (a store's backup is written that way).
    /// - Returns: the new file's path.
    public static func createTemporary(near path: String) throws(PrivateFileError) -> String {
        let (temporary, fd) = try openTemporary(near: path)
        close(fd)
        return temporary
    }

    /// The new file and its descriptor, open for writing: the bytes go through the
    /// descriptor `O_EXCL` created, never through the name again.
    private static func openTemporary(near path: String) throws(PrivateFileError) -> (path: String, fd: Int32) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/." + url.lastPathComponent + "." + UUID().uuidString + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw PrivateFileError(call: "open", path: temporary, errno: errno) }
        // NB: `open` applies the umask, which can only take bits away; `fchmod` makes the
        // mode exactly 0600 (a umask of 0277 would leave the owner unable to rewrite it).
        guard fchmod(fd, mode) == 0 else {
            let failure = PrivateFileError(call: "fchmod", path: temporary, errno: errno)
            close(fd)
            unlink(temporary)
            throw failure
        }
        return (temporary, fd)
    }

    /// Makes a rename durable; a failure here loses no data, so it is not one.
    private static func syncFolder(of path: String) {
        let fd = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}

// MARK: - PrivateFileError

/// A private file that could not be written: the system call that failed, on which path,
/// and the system's error number. Each caller turns it into its own typed error.
public struct PrivateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `open`, `fchmod`, `write`, `fsync` or `rename`.
    public var call: String
    public var path: String
    public var errno: Int32

    public init(call: String, path: String, errno: Int32) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    /// The system's words for `errno`.
    public var reason: String { String(cString: strerror(errno)) }

    public var description: String { "\(call) \(path): \(reason)" }
}
