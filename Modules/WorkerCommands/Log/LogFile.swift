import Foundation
import Storage
import Synchronization

// MARK: - LogFile

/// An append-only log file for runs without journald (cron): created 0600 with its
/// folder (0700) when missing, never opened through a symlink, and rotated when it
/// passes `limit` bytes (the old lines move to `FILE.1`, replacing older ones), so
/// the log of a worker that runs for years stays under twice the limit.
public final class LogFile: Sendable {
    public static let defaultLimit = 1 << 20

    public let path: String
    private let state: Mutex<(descriptor: Int32, size: Int)>
    private let limit: Int

    /// - Throws: `StorageError.fileSystem` when the file cannot be opened.
    public init(path: String, limit: Int = LogFile.defaultLimit) throws(StorageError) {
        self.path = path
        self.limit = max(4096, limit)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: folder.path) {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .fileSystem(operation: "create the log folder", path: folder.path, errno: EACCES)
            }
        }
        let opened = try Self.open(path)
        state = Mutex(opened)
        rotateIfFull()
    }

    deinit {
        state.withLock { close($0.descriptor) }
    }

    /// Appends one line (best effort: a full disk must not stop a sync).
    public func write(_ line: String) {
        state.withLock { state in
            let bytes = Array(line.utf8)
            let written = bytes.withUnsafeBytes { Foundation.write(state.descriptor, $0.baseAddress, $0.count) }
            if written > 0 { state.size += written }
        }
        rotateIfFull()
    }

    private func rotateIfFull() {
        state.withLock { state in
            guard state.size > limit else { return }
            guard rename(path, path + ".1") == 0, let reopened = try? Self.open(path) else { return }
            close(state.descriptor)
            state = reopened
        }
    }

    private static func open(_ path: String) throws(StorageError) -> (descriptor: Int32, size: Int) {
        let descriptor = Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .fileSystem(operation: "open the log file", path: path, errno: errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw .fileSystem(operation: "open the log file (not a regular file)", path: path, errno: EINVAL)
        }
        return (descriptor, Int(info.st_size))
    }
}
