import Foundation
import PrivateFiles
import Storage
import Sync
import Vocabulary

// MARK: - WorkerReport

/// What `shelf-sync --report FILE` holds: every account's run report and the exit.
public struct WorkerReport: Encodable, Sendable {
    public var startedAt: Date
    public var finishedAt: Date
    public var exitCode: ExitCode
    /// The worst outcome among the accounts (`synced`, `needs_attention`, …).
    public var exitReason: String
    public var message: String
    /// Every account the run was asked to sync, each with its own outcome and message.
    public var accounts: [RunReport]

    enum CodingKeys: String, CodingKey {
        case accounts, message
        case startedAt = "started_at"
        case finishedAt = "finished_at"
        case exitCode = "exit_code"
        case exitReason = "exit_reason"
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// Writes the report so a reader never sees half of it and nothing but the report
    /// is ever written (`PrivateFileWriter`: 0600, renamed over the target — a symlink
    /// planted there is replaced, not followed). A missing folder is created (0700), so a
    /// report path in `~/.local/state` works on a fresh account.
    public func write(to path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: folder.path) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try PrivateFileWriter.write(try encoded(), to: path)
    }
}
