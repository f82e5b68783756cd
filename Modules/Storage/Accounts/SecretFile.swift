import Foundation

// MARK: - SecretFile

/// Reading and writing files that hold secrets.
///
/// A secret file must be a regular file that neither group nor others can access
/// (`chmod 600`); anything looser is refused rather than used, as ssh does with keys.
public enum SecretFile {
    /// The file's text without one trailing newline.
    public static func read(_ path: String) throws(AccountConfigError) -> String {
        try requirePrivate(path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "permission denied or not a file")
        }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        if text.hasSuffix("\r") { text.removeLast() }
        guard !text.isEmpty else { throw .emptyPassword(source: path) }
        return text
    }

    /// Throws unless `path` is a regular file with no group or other permission bits.
    public static func requirePrivate(_ path: String) throws(AccountConfigError) {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw .unreadable(path: path, reason: FileManager.default.fileExists(atPath: path) ? "\(error.localizedDescription)" : "no such file")
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw .unreadable(path: path, reason: "not a regular file")
        }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.uint16Value ?? 0o777
        guard mode & 0o077 == 0 else {
            throw .unsafePermissions(path: path, mode: String(mode, radix: 8))
        }
    }

    /// Writes `data` so that the file is never visible with looser permissions or half
    /// written: a 0600 temporary file in the same folder, fsync, then rename over.
    public static func writeAtomically(_ data: Data, to url: URL) throws(AccountConfigError) {
        let directory = url.deletingLastPathComponent()
        try ensurePrivateDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unreadable(path: temporary.path, reason: String(cString: strerror(errno))) }
        var ok = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                // NB: `baseAddress!` is safe: the loop only runs when the buffer is non-empty.
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok, rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw .unreadable(path: url.path, reason: "write failed: \(reason)")
        }
    }

    /// Creates the folder (and its parents) if needed and makes it 0700.
    public static func ensurePrivateDirectory(_ url: URL) throws(AccountConfigError) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
        } catch {
            throw .unreadable(path: url.path, reason: "cannot create folder: \(error.localizedDescription)")
        }
    }
}
