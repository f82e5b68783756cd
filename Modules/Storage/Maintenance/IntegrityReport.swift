import Foundation

// MARK: - IntegrityReport

/// What SQLite's own check found in a store file: nothing (healthy) or the first
/// problems it listed, such as "Tree 4 page 12 cell 0: invalid page number 4096".
public struct IntegrityReport: Sendable, Equatable {
    /// How thorough the check was.
    public enum Depth: String, Sendable {
        /// `PRAGMA quick_check`: every page's structure, without comparing indexes with
        /// their tables — linear in the file's size, cheap enough before a sync.
        case quick
        /// `PRAGMA integrity_check`: `quick` plus every index entry against its row.
        case full
    }

    /// The file that was checked.
    public let path: String
    public let depth: Depth
    /// SQLite's complaints, at most `IntegrityCheck.problemLimit`; empty when healthy.
    public let problems: [String]
    /// The file's schema version (`PRAGMA user_version`), when it could be read.
    public let schemaVersion: Int?

    public init(path: String, depth: Depth, problems: [String], schemaVersion: Int?) {
        self.path = path
        self.depth = depth
        self.problems = problems
        self.schemaVersion = schemaVersion
    }

    public var isHealthy: Bool { problems.isEmpty }
}

// MARK: - Damage

/// A store that failed its check. Its message names the file and what to do, because it
/// is what cron mails and what the journal shows.
public struct DamagedStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public let report: IntegrityReport

    public init(report: IntegrityReport) {
        self.report = report
    }

    public var description: String {
        let first = report.problems.first ?? "unknown damage"
        let more = report.problems.count > 1 ? " (and \(report.problems.count - 1) more)" : ""
        return """
            the local store \(report.path) is damaged (\(first)\(more)); nothing more is sent from it to the server. \
            Run 'shelf doctor' to see the damage, then 'shelf restore BACKUP' to put a backup back, \
            or move the file aside so the next sync downloads everything again \
            (changes not yet synced stay in the moved file)
            """
    }
}
