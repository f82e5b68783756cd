import Foundation

// The outcome of an import or export, as screens and scripts see it. The reading,
// planning and writing live in Repositories (`LibraryImport`, `ShelfExport`).

// MARK: - ImportFormat

/// The files `shelf import` reads.
public enum ImportFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// Goodreads' library export (`goodreads_library_export.csv`).
    case goodreads
    /// `calibredb list --for-machine` JSON.
    case calibre
    /// Shelf's own export, JSON or CSV (`shelf export`).
    case shelf
}

// MARK: - ImportIssue

/// A row that was skipped, or imported with a change, and why.
public struct ImportIssue: Hashable, Sendable, Codable {
    public var location: String
    public var reason: String
    /// false: the row was skipped; true: it was imported, adjusted as `reason` says.
    public var imported: Bool

    public init(location: String, reason: String, imported: Bool = false) {
        self.location = location
        self.reason = reason
        self.imported = imported
    }
}

// MARK: - ImportField

/// One field (a Goodreads column, a Calibre key) of the rows an import read: what Shelf
/// kept it as, or that it was dropped, and in how many of the imported rows it held a
/// value. An import says field by field what it kept and what it left behind.
public struct ImportField: Hashable, Sendable, Codable {
    /// The field's name in the file (`My Rating`, `tags`).
    public var source: String
    /// What Shelf keeps it as (`title`, `finished`, `a note on the book`); nil when dropped.
    public var keptAs: String?
    /// Imported rows in which it held a value (an empty cell, or a rating of 0, holds none).
    public var rows: Int
    /// Why it was dropped, or how it was read; nil when the name says it all.
    public var reason: String?

    public init(source: String, keptAs: String?, rows: Int, reason: String? = nil) {
        self.source = source
        self.keptAs = keptAs
        self.rows = rows
        self.reason = reason
    }

    public var isDropped: Bool { keptAs == nil }
}

// MARK: - ImportReport

/// What an import did (or, for a dry run, would do).
public struct ImportReport: Hashable, Sendable, Codable {
    public struct Counts: Hashable, Sendable, Codable {
        public var added = 0
        public var updated = 0
        public var unchanged = 0

        public init(added: Int = 0, updated: Int = 0, unchanged: Int = 0) {
            self.added = added
            self.updated = updated
            self.unchanged = unchanged
        }
    }

    public var file: String
    public var format: ImportFormat
    public var dryRun: Bool
    /// Rows (CSV records after the header, JSON entries or records) in the file.
    public var rows: Int
    /// Per collection: records added, updated, or already as the file has them.
    public var collections: [String: Counts]
    /// Rows skipped, and rows imported with a change, each with why.
    public var issues: [ImportIssue]
    /// The file's fields that held a value in an imported row, kept or dropped, in the
    /// file's order; empty for a Shelf export, whose every field is kept.
    public var fields: [ImportField]

    public init(
        file: String, format: ImportFormat, dryRun: Bool, rows: Int, collections: [String: Counts], issues: [ImportIssue],
        fields: [ImportField] = []
    ) {
        self.file = file
        self.format = format
        self.dryRun = dryRun
        self.rows = rows
        self.collections = collections
        self.issues = issues
        self.fields = fields
    }

    /// The fields dropped: data the file held that Shelf does not keep.
    public var droppedFields: [ImportField] { fields.filter(\.isDropped) }

    public var added: Int { collections.values.reduce(0) { $0 + $1.added } }
    public var updated: Int { collections.values.reduce(0) { $0 + $1.updated } }
    public var unchanged: Int { collections.values.reduce(0) { $0 + $1.unchanged } }
    public var skipped: Int { issues.count { !$0.imported } }
}


// MARK: - Export

/// The shapes `shelf export` writes.
public enum ExportFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case json, csv
}

/// What an export wrote, for the confirmation.
public struct ExportSummary: Hashable, Sendable, Codable {
    public var format: ExportFormat
    /// Records per collection.
    public var collections: [String: Int]
    public var records: Int
    public var bytes: Int

    public init(format: ExportFormat, collections: [String: Int], records: Int, bytes: Int) {
        self.format = format
        self.collections = collections
        self.records = records
        self.bytes = bytes
    }
}

// MARK: - LibraryImporting

/// Writes an import into the account's store: all of a file's records or none, or, for
/// a dry run, only says what would change. The plan is read from the file beforehand
/// (Repositories' `ImportPlan`), so the port names it as an associated type.
public protocol LibraryImporting: Sendable {
    associatedtype Plan: Sendable

    /// - Parameters:
    ///   - file: the file's name as the reader gave it, for the report.
    ///   - progress: told `(done, total)` as records are written.
    func importLibrary(
        _ plan: Plan, file: String, dryRun: Bool, progress: @escaping @Sendable (Int, Int) -> Void
    ) async throws -> ImportReport
}
