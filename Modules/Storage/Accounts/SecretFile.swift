import Foundation
import PrivateFiles

// MARK: - SecretFile

/// Reading and writing files that hold secrets.
///
/// A secret file must be a regular file that neither group nor others can access
/// (`chmod 600`); anything looser is refused rather than used, as ssh does with keys.
public enum SecretFile {
    /// The file's text without one trailing newline.
    public static func read(_ path: String) throws(AccountConfigError) -> String {
        do {
            return try readSecret(path)
        } catch {
            throw configurationError(error, path: path)
        }
    }

    /// The file's text without one trailing newline, or what keeps it from being used.
    public static func readSecret(_ path: String) throws(PasswordProblem.Kind) -> String {
        try checkPrivate(path)
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable("permission denied") }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        if text.hasSuffix("\r") { text.removeLast() }
        guard !text.isEmpty else { throw .empty }
        return text
    }

    /// Throws unless `path` is a regular file with no group or other permission bits.
    public static func requirePrivate(_ path: String) throws(AccountConfigError) {
        do {
            try checkPrivate(path)
        } catch {
            throw configurationError(error, path: path)
        }
    }

    /// A secret file's problem as the configuration error of a file the reader named.
    private static func configurationError(_ kind: PasswordProblem.Kind, path: String) -> AccountConfigError {
        switch kind {
        case .missing: .unreadable(path: path, reason: "no such file")
        case .notPrivate(let mode): .unsafePermissions(path: path, mode: mode)
        case .notAFile: .unreadable(path: path, reason: "not a regular file")
        case .unreadable(let reason): .unreadable(path: path, reason: reason)
        case .empty: .emptyPassword(source: path)
        }
    }

    /// What keeps `path` from being a private regular file: missing, loose, not a file.
    private static func checkPrivate(_ path: String) throws(PasswordProblem.Kind) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            // NB: a path through a folder that is gone (an unmounted drive) is missing too.
            if code == ENOENT || code == ENOTDIR { throw .missing }
            throw .unreadable(String(cString: strerror(code)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notAFile }
        let mode = UInt16(status.st_mode & 0o777)
        guard mode & 0o077 == 0 else { throw .notPrivate(mode: String(mode, radix: 8)) }
    }

    /// Writes `data` in a private folder (made 0700), through `PrivateFileWriter`: never
    /// visible with looser permissions or half written.
    public static func writeAtomically(_ data: Data, to url: URL) throws(AccountConfigError) {
        try ensurePrivateDirectory(url.deletingLastPathComponent())
        do throws(PrivateFileError) {
            try PrivateFileWriter.write(data, to: url.path)
        } catch where error.call == "open" {
            throw .unreadable(path: error.path, reason: error.reason)
        } catch {
            throw .unreadable(path: url.path, reason: "write failed: \(error.reason)")
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
