// MARK: - TextInputError

/// Why text for a value (`--body -`, `--edit`) could not be had. Each message says what
/// happened and that nothing was written; when the person's own words exist only in
/// the editor's file, the file is kept and named.
public enum TextInputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// More than `limit` bytes; `source` is "standard input" or "the editor's file".
    case tooLarge(source: String, limit: Int)
    case notUTF8(source: String)
    /// Nothing but white space.
    case empty(what: String)
    /// The editor saved what it was given.
    case unchanged(what: String)
    /// The editor could not be run at all.
    case editorNotStarted(command: String, reason: String)
    /// The editor exited with a failure status (or was killed); `keptFile` holds what
    /// was written in it, when anything was.
    case editorFailed(command: String, status: String, keptFile: String?)
    /// The temporary file could not be made, written or read.
    case fileSystem(operation: String, reason: String)

    public var description: String {
        switch self {
        case .tooLarge(let source, let limit):
            return "the text from \(source) is longer than \(limit / 1024) KiB; nothing was written"
        case .notUTF8(let source):
            return "the text from \(source) is not UTF-8; nothing was written"
        case .empty(let what):
            return "\(what) is empty; nothing was written"
        case .unchanged(let what):
            return "\(what) is unchanged; nothing was written"
        case .editorNotStarted(let command, let reason):
            return "could not start the editor '\(command)' (\(reason)); set VISUAL or EDITOR to one that works"
        case .editorFailed(let command, let status, let keptFile):
            let kept = keptFile.map { "; what you wrote is kept in \($0)" } ?? ""
            return "the editor '\(command)' \(status); nothing was written\(kept)"
        case .fileSystem(let operation, let reason):
            return "could not \(operation) (\(reason)); nothing was written"
        }
    }
}
