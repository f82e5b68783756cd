import Foundation

// MARK: - FilePermissions

/// Keeps the reader's data private: the data folder is 0700 and each database file
/// 0600. SQLite creates `-wal` and `-shm` with the database file's mode, so they
/// follow. Done with POSIX calls rather than a process umask, which would race with
/// other threads creating files.
enum FilePermissions {
    static let directoryMode: mode_t = 0o700
    static let fileMode: mode_t = 0o600

    /// Creates `directory` (and missing parents) with mode 0700.
    /// - Parameter enforce: also make an existing `directory` 0700 — for Shelf's own
    ///   data folder, never for a folder the caller chose (which may be shared).
    static func prepareDirectory(_ directory: URL, enforce: Bool) throws(StorageError) {
        let path = directory.path
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: Int(directoryMode)]
            )
        } catch {
            throw .fileSystem(operation: "create folder", path: path, errno: posixCode(of: error))
        }
        guard !enforce || chmod(path, directoryMode) == 0 else {
            throw .fileSystem(operation: "set permissions of folder", path: path, errno: errno)
        }
    }

    /// The POSIX error behind a Foundation file error (EIO when it names none).
    private static func posixCode(of error: any Error) -> Int32 {
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain { return Int32(nsError.code) }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        return EIO
    }

    /// Creates an empty file with mode 0600 unless it exists.
    static func createPrivateFile(_ path: String) throws(StorageError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw .fileSystem(operation: "create", path: path, errno: errno)
        }
    }

    /// Makes the database file and any `-wal` / `-shm` companion 0600.
    static func restrictDatabaseFiles(_ path: String) throws(StorageError) {
        for file in [path, path + "-wal", path + "-shm"] {
            if chmod(file, fileMode) != 0, errno != ENOENT {
                throw .fileSystem(operation: "set permissions of", path: file, errno: errno)
            }
        }
    }
}
