import Foundation

// MARK: - PrivateFile

/// Files only their owner can read, created so that no one else's file is ever
/// opened in their place: `O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600.
public enum PrivateFile {
    /// Creates a new, empty 0600 file with a unique hidden name in `target`'s folder
    /// (same file system, so it can later be renamed over `target` atomically).
    public static func createTemporary(near target: URL) throws(StorageError) -> URL {
        let folder = target.deletingLastPathComponent()
        let url = folder.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .fileSystem(operation: "create", path: url.path, errno: errno) }
        close(descriptor)
        return url
    }

    /// Replaces `target` with `data` so a reader sees the old or the new content, never
    /// half of it, and never writes through a symlink planted at `target` or into a file
    /// someone else owns: the bytes go to a new file created with `O_EXCL | O_NOFOLLOW`
    /// (0600) in the target's folder, are flushed, and the file is renamed over the name
    /// (`rename(2)` replaces a symlink itself, not what it points to).
    /// - Parameter createFolder: create a missing folder (0700) first.
    public static func writeAtomically(_ data: Data, to target: URL, createFolder: Bool = true) throws(StorageError) {
        let folder = target.deletingLastPathComponent()
        if createFolder && !FileManager.default.fileExists(atPath: folder.path) {
            try FilePermissions.prepareDirectory(folder, enforce: false)
        }
        var info = stat()
        if stat(target.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            throw .fileSystem(operation: "write", path: target.path, errno: EISDIR)
        }
        let url = folder.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .fileSystem(operation: "create", path: url.path, errno: errno) }
        let failure: Int32? = data.withUnsafeBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        let synced = fsync(descriptor) == 0 ? nil : errno
        close(descriptor)
        if let code = failure ?? synced {
            unlink(url.path)
            throw .fileSystem(operation: "write", path: url.path, errno: code)
        }
        guard rename(url.path, target.path) == 0 else {
            let code = errno
            unlink(url.path)
            throw .fileSystem(operation: "rename into place", path: target.path, errno: code)
        }
    }
}
