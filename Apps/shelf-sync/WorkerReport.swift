import Foundation
import Sync

// MARK: - WorkerReport

/// What `--report FILE` holds: every account's run report and the overall exit.
struct WorkerReport: Encodable {
    var startedAt: Date
    var finishedAt: Date
    var exitCode: Int32
    /// The worst outcome among the accounts (`synced`, `needs_attention`, …).
    var exitReason: String
    var message: String
    var accounts: [RunReport]

    enum CodingKeys: String, CodingKey {
        case accounts, message
        case startedAt = "started_at"
        case finishedAt = "finished_at"
        case exitCode = "exit_code"
        case exitReason = "exit_reason"
    }

    /// Writes the report so a reader never sees half of it: a temporary file in the
    /// same folder, flushed, then renamed over the old report.
    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(self) + Data("\n".utf8)
        let target = URL(fileURLWithPath: path)
        let temporary = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(getpid()).tmp")
        try data.write(to: temporary)
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.synchronize()
        try handle.close()
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot write \(path): \(reason)"])
        }
    }
}
