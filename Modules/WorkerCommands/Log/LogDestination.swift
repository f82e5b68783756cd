import Foundation

// MARK: - LogDestination

/// Where the worker's lines go: standard error (cron mails it, journald reads it), or a
/// file of its own that stays bounded.
public enum LogDestination {
    /// Whether standard error is the journald stream systemd connected (`JOURNAL_STREAM`
    /// holds its `device:inode`): only then do lines carry `<N>` priority prefixes.
    public static func standardErrorIsJournal(environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// Lines written to standard error.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(line.utf8))
    }
}
