import Foundation
import Sync
import Synchronization
import Vocabulary

// MARK: - WorkerLog

/// The worker's log: one line per event, text for people or one JSON object per line
/// for log shippers, filtered by level.
///
/// What a level shows: `info` (the default) is one line for an idle run ("nothing to
/// do", with its requests and milliseconds) and one per change otherwise; per-page and
/// per-collection progress is `debug`; retries, conflicts and refused changes are
/// `warning`; a run that did not sync is `warning` or `error`. Timestamps are UTC with
/// milliseconds. Under journald (`priorityPrefixes`), every line starts with its syslog
/// priority (`<3>`…`<7>`), which journald strips and files the line under.
public final class WorkerLog: Sendable {
    public enum Format: String, Sendable, CaseIterable { case text, json }

    public let format: Format
    public let threshold: LogLevel
    public let priorityPrefixes: Bool
    private let clock: SyncClock
    private let sink: Mutex<@Sendable (String) -> Void>

    /// - Parameter sink: receives each finished line, newline included; called under a
    ///   lock, so lines from accounts synced in parallel never interleave.
    public init(
        format: Format, threshold: LogLevel = .info, priorityPrefixes: Bool = false,
        clock: SyncClock = .live, sink: @escaping @Sendable (String) -> Void
    ) {
        self.format = format
        self.threshold = threshold
        self.priorityPrefixes = priorityPrefixes
        self.clock = clock
        self.sink = Mutex(sink)
    }

    // MARK: Writing

    /// Logs a sync event of `account`'s run.
    public func log(_ event: SyncEvent, account: String) {
        let level = Self.level(of: event)
        guard level <= threshold else { return }
        var fields = event.fields
        var summary = event.summary
        if case .runFinished(let report) = event, Self.isIdle(report) {
            summary = "nothing to do (\(report.requests) request\(report.requests == 1 ? "" : "s"), \(report.durationMilliseconds) ms)"
            fields = fields.map { $0.key == "message" ? ("message", .string("nothing to do")) : $0 }
        } else if case .runFinished(let report) = event, report.outcome == .rested {
            // NB: a rest is no sync: its line says only why it rested and when the server is asked.
            summary = report.message
        }
        write(level: level, account: account, event: event.name, summary: summary, fields: fields)
    }

    /// A line that is not a sync event: configuration errors, skipped runs, stopping.
    public func note(_ message: String, account: String?, level: LogLevel = .info, event: String = "message") {
        guard level <= threshold else { return }
        write(level: level, account: account, event: event, summary: message, fields: [("message", .string(message))])
    }

    // MARK: Levels

    /// An idle run: synced, every collection offered, and nothing moved either way.
    static func isIdle(_ report: RunReport) -> Bool {
        report.outcome == .synced && report.unavailable.isEmpty && report.collections.values.allSatisfy { collection in
            collection.pulled == 0 && collection.pushed == 0 && collection.merged == 0
                && collection.deletedLocally == 0 && collection.conflicts == 0 && collection.deadLetters == 0
        }
    }

    static func level(of event: SyncEvent) -> LogLevel {
        switch event {
        case .runStarted, .collectionStarted, .notModified, .pageApplied:
            .debug
        case .collectionFinished(_, let report):
            report.pulled > 0 || report.deletedLocally > 0 ? .info : .debug
        case .pushed, .merged, .reuploading, .lateRecords, .writeOverwritten:
            .info
        case .reconciled(_, let found):
            found.absent > 0 ? .warning : .info
        case .conflict, .deadLettered, .retrying, .collectionUnavailable, .discardedLocalChange, .serverForgot, .recordSkipped, .recordRefused,
             .keyringRefused, .historyDistrusted:
            .warning
        case .runFinished(let report):
            switch report.outcome {
            case .synced where !report.unavailable.isEmpty: .warning
            case .synced, .rested: .info
            case .needsAttention, .backoff, .temporaryFailure, .alreadyRunning: .warning
            case .authenticationFailed, .localStoreFailure, .configurationError: .error
            }
        }
    }

    // MARK: Formatting

    private func write(level: LogLevel, account: String?, event: String, summary: String, fields: [(key: String, value: LogValue)]) {
        let timestamp = clock.now().formatted(Self.timestampStyle)
        var line = priorityPrefixes ? "<\(level.syslogPriority)>" : ""
        switch format {
        case .text:
            line += "\(timestamp) \(level.rawValue.uppercased()) \(account.map { "[\(TerminalEscaping.escaped($0))] " } ?? "")\(TerminalEscaping.escaped(summary))"
        case .json:
            var parts: [(String, LogValue)] = [("ts", .string(timestamp)), ("level", .string(level.rawValue))]
            if let account { parts.append(("account", .string(account))) }
            parts.append(("event", .string(event)))
            parts += fields.map { ($0.key, $0.value) }
            line += "{" + Self.unique(parts).map { "\(Self.quoted($0.0)):\(Self.json($0.1))" }.joined(separator: ",") + "}"
        }
        line += "\n"
        sink.withLock { $0(line) }
    }

    /// `2026-12-01T00:51:03.123Z`.
    static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC") ?? .gmt)

    private static func unique(_ parts: [(String, LogValue)]) -> [(String, LogValue)] {
        var seen = Set<String>()
        return parts.filter { seen.insert($0.0).inserted }
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
