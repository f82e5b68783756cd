import Domain

// MARK: - ImportReportScreen

/// What `shelf import` did: counts per collection, the file's fields one by one — what
/// each was kept as, or that it was dropped, and in how many imported rows it held a
/// value — and every row skipped or adjusted with its line (or entry) and why.
///
/// JSON: `{"file", "format", "dryRun", "rows", "added", "updated", "unchanged",
/// "skipped", "collections": {"books": {"added", "updated", "unchanged"}, …},
/// "fields": [{"source", "keptAs" (null: dropped), "rows", "reason"}],
/// "issues": [{"location", "reason", "imported"}]}`.
public struct ImportReportScreen: RenderableScreen, Hashable {
    public let report: ImportReport
    /// False for the local-only store: nothing is queued for a sync that cannot happen.
    public let hasServer: Bool

    public init(_ report: ImportReport, hasServer: Bool = true) {
        self.report = report
        self.hasServer = hasServer
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        let verb = report.dryRun ? "Would import" : "Imported"
        text.line("\(verb) \(report.file) (\(report.format.rawValue), \(Wording.count(report.rows, "row"))): "
            + "\(report.added) added, \(report.updated) updated, \(report.unchanged) unchanged, \(report.skipped) skipped"
            + (report.dryRun ? "; nothing was written" : (report.added + report.updated > 0 ? (hasServer ? " (queued for sync)" : " (saved locally; no account to sync it with)") : "")))
        let names = report.collections.keys.sorted {
            (CollectionName(rawValue: $0) ?? .products, $0) < (CollectionName(rawValue: $1) ?? .products, $1)
        }
        if names.count > 1 {
            var table = TextTable([.init("COLLECTION"), .init("ADDED", .right), .init("UPDATED", .right), .init("UNCHANGED", .right)])
            for name in names {
                // NB: the force unwrap is safe: `name` is a key of `collections`.
                let counts = report.collections[name]!
                table.append(name, String(counts.added), String(counts.updated), String(counts.unchanged))
            }
            text.table(table)
        }
        if !report.fields.isEmpty {
            let dropped = report.droppedFields.count
            text.line(dropped == 0
                ? "Every field that held a value was kept (ROWS: imported rows that held one):"
                : "\(Wording.count(dropped, "field")) Shelf does not keep \(dropped == 1 ? "was" : "were") dropped "
                    + "(ROWS: imported rows that held a value):", dropped == 0 ? nil : .warning)
            var table = TextTable([.init("FIELD"), .init("KEPT AS"), .init("ROWS", .right), .init("NOTE")])
            for field in report.fields {
                table.append(field.source, field.keptAs ?? "dropped", String(field.rows), field.reason ?? "")
            }
            text.table(table)
        }
        for issue in report.issues {
            text.line("\(issue.location): \(issue.imported ? "" : "skipped: ")\(issue.reason)", issue.imported ? .quiet : .warning)
        }
        return text.text
    }

    private enum CodingKeys: String, CodingKey {
        case file, format, dryRun, rows, added, updated, unchanged, skipped, collections, fields, issues
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(report.file, forKey: .file)
        try container.encode(report.format, forKey: .format)
        try container.encode(report.dryRun, forKey: .dryRun)
        try container.encode(report.rows, forKey: .rows)
        try container.encode(report.added, forKey: .added)
        try container.encode(report.updated, forKey: .updated)
        try container.encode(report.unchanged, forKey: .unchanged)
        try container.encode(report.skipped, forKey: .skipped)
        try container.encode(report.collections, forKey: .collections)
        try container.encode(report.fields.map(FieldJSON.init), forKey: .fields)
        try container.encode(report.issues, forKey: .issues)
    }
}

extension ImportReportScreen {
    /// One field as `--json` prints it: every key present, `keptAs` null for a dropped one.
    private struct FieldJSON: Encodable {
        let field: ImportField
        init(_ field: ImportField) { self.field = field }

        private enum CodingKeys: String, CodingKey { case source, keptAs, rows, reason }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(field.source, forKey: .source)
            try container.encode(field.keptAs, forKey: .keptAs)
            try container.encode(field.rows, forKey: .rows)
            try container.encode(field.reason, forKey: .reason)
        }
    }
}

// MARK: - ExportSummaryScreen

/// What `shelf export --output FILE` wrote (an export to standard output is the data
/// itself, with no summary).
///
/// JSON: `{"file", "format", "records", "bytes", "collections": {"books": 12, …}}`.
public struct ExportSummaryScreen: RenderableScreen, Hashable {
    public let file: String
    public let summary: ExportSummary

    public init(file: String, summary: ExportSummary) {
        self.file = file
        self.summary = summary
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        let parts = summary.collections.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        text.line("Exported \(Wording.count(summary.records, "record")) (\(parts)) to \(file) as \(summary.format.rawValue), \(summary.bytes) bytes")
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case file, format, records, bytes, collections }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(summary.format, forKey: .format)
        try container.encode(summary.records, forKey: .records)
        try container.encode(summary.bytes, forKey: .bytes)
        try container.encode(summary.collections, forKey: .collections)
    }
}
