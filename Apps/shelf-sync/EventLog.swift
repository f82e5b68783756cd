import Foundation
import Sync
import Synchronization

// MARK: - EventLog

/// Writes one line per sync event to stderr: text for people, JSON for log shippers.
/// Every line starts with (or holds) an ISO-8601 timestamp and the account.
final class EventLog: Sendable {
    enum Format: String, Sendable { case text, json }

    let format: Format
    private let lock = Mutex(())

    init(format: Format) {
        self.format = format
    }

    func log(_ event: SyncEvent, account: String) {
        write(level: Self.level(of: event), account: account, event: event.name, summary: event.summary, fields: event.fields)
    }

    /// A line that is not a sync event (configuration errors, skipped runs).
    func note(_ message: String, account: String?, level: String = "info", event: String = "message") {
        write(level: level, account: account, event: event, summary: message, fields: [("message", .string(message))])
    }

    // MARK: Formatting

    private func write(level: String, account: String?, event: String, summary: String, fields: [(key: String, value: LogValue)]) {
        let timestamp = Date().formatted(.iso8601)
        let line: String
        switch format {
        case .text:
            line = "\(timestamp) \(level.uppercased()) \(account.map { "[\($0)] " } ?? "")\(summary)"
        case .json:
            var parts = [("ts", LogValue.string(timestamp)), ("level", .string(level))]
            if let account { parts.append(("account", .string(account))) }
            parts.append(("event", .string(event)))
            parts += fields
            line = "{" + Self.unique(parts).map { "\(Self.quoted($0.0)):\(Self.json($0.1))" }.joined(separator: ",") + "}"
        }
        lock.withLock { _ in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    private static func unique(_ parts: [(String, LogValue)]) -> [(String, LogValue)] {
        var seen = Set<String>()
        return parts.filter { seen.insert($0.0).inserted }
    }

    private static func level(of event: SyncEvent) -> String {
        switch event {
        case .conflict, .deadLettered, .retrying, .collectionUnavailable, .discardedLocalChange, .serverForgot: "warning"
        case .runFinished(let report):
            (report.outcome == .synced && report.unavailable.isEmpty) || report.outcome == .alreadyRunning ? "info" : "warning"
        default: "info"
        }
    }

    private static func json(_ value: LogValue) -> String {
        switch value {
        case .number(let number): String(number)
        case .string(let text): quoted(text)
        }
    }

    /// A JSON string literal, escaped by Foundation's encoder (the object around it is
    /// written by hand so its keys keep their order: ts, level, account, event, fields).
    static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // NB: encoding a String cannot fail; the fallback only satisfies the type checker.
        guard let data = try? encoder.encode(text) else { return "\"\"" }
        return String(decoding: data, as: UTF8.self)
    }
}
