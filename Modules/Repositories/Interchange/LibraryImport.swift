import Domain
import Foundation
import Records
import Storage

// MARK: - LibraryImport

/// Reads a file, plans it, and writes it into an account's store in one transaction,
/// which the history records as one operation (`ShelfStore.edit`).
///
/// A record the store does not have (or has only as a deletion waiting to be pushed) is
/// added; one it has gets the file's fields over its own (fields the file does not
/// carry stay), and is left alone when nothing would change — so importing a file twice
/// queues nothing the second time. Every write is a local edit with its outbox entry,
/// synced on the next `shelf sync`.
public enum LibraryImport {
    /// The largest file read: past this a library export is not what it seems.
    public static let maximumFileBytes = 256 * 1024 * 1024

    /// Reads `url` and plans its records.
    /// - Parameter format: the file's format; guessed from its content when nil.
    /// - Throws: `ImportError` — nothing has been written.
    public static func plan(fileAt url: URL, format: ImportFormat?) throws(ImportError) -> ImportPlan {
        let name = url.path
        if let problem = unreadableReason(name) { throw ImportError(.unreadable, file: name, reason: problem) }
        let data: Data
        do {
            let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= maximumFileBytes else {
                throw ImportError(.unreadable, file: name, reason: "larger than \(maximumFileBytes / 1024 / 1024) MiB")
            }
            data = try Data(contentsOf: url)
        } catch let error as ImportError {
            throw error
        } catch {
            throw ImportError(.unreadable, file: name, reason: (error as NSError).localizedDescription)
        }
        return try plan(data, format: format, file: name)
    }

    /// Why `path` cannot be read as an import file, in words (never Foundation's error
    /// codes): missing, a folder, not a regular file, no permission; nil when it can.
    static func unreadableReason(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            return code == ENOENT || code == ENOTDIR ? "no such file" : String(cString: strerror(code))
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return "it is a folder, not a file; name the export file inside it (e.g. goodreads_library_export.csv)"
        case S_IFREG: break
        default: return "not a regular file"
        }
        return access(path, R_OK) == 0 ? nil : "permission denied"
    }

    /// Plans `data` (already read).
    public static func plan(_ data: Data, format: ImportFormat?, file: String) throws(ImportError) -> ImportPlan {
        guard let format = format ?? ImportFormat.guess(data) else {
            throw ImportError(.unknownFormat, file: file, reason: """
                cannot tell the format (a Goodreads export CSV, Calibre's 'calibredb list --for-machine' JSON, or a Shelf \
                export); name it with --format
                """)
        }
        do {
            switch format {
            case .goodreads: return try GoodreadsLibrary.plan(data)
            case .calibre: return try CalibreLibrary.plan(data)
            case .shelf: return try ShelfExport.plan(data)
            }
        } catch {
            throw ImportError(.malformed, file: file, reason: "\(error)")
        }
    }

    /// Writes the plan's records into `store` in one transaction (all or nothing), or —
    /// for a dry run — only reads the store to say what would change.
    /// - Parameter progress: told `(done, total)` every few hundred records and at the end.
    public static func apply(
        _ plan: ImportPlan, to store: ShelfStore, file: String, dryRun: Bool,
        progress: @Sendable (Int, Int) -> Void = { _, _ in }
    ) throws -> ImportReport {
        let step = 500
        func body(_ reader: StoreReader, _ write: ((ImportItem, Data) throws -> Void)?) throws -> ImportReport {
            var report = ImportReport(
                file: file, format: plan.format, dryRun: dryRun, rows: plan.rows, collections: [:], issues: plan.issues,
                fields: plan.fields)
            for (index, item) in plan.items.enumerated() {
                if index % step == 0 { progress(index, plan.items.count) }
                var counts = report.collections[item.collection.rawValue] ?? ImportReport.Counts()
                let existing = try reader.record(item.collection, id: item.id)
                var fields = item.fields
                if let existing {
                    var current = try WireJSON.fields(existing.json)
                    ServerOwnedFields.removeStamp(from: &current)
                    fields = current.merging(item.fields) { _, new in new }
                    if fields == current {
                        counts.unchanged += 1
                        report.collections[item.collection.rawValue] = counts
                        continue
                    }
                    counts.updated += 1
                } else {
                    counts.added += 1
                }
                fields["id"] = .string(item.id)
                try write?(item, try WireFieldsEncoding.data(fields))
                report.collections[item.collection.rawValue] = counts
            }
            progress(plan.items.count, plan.items.count)
            return report
        }
        if dryRun {
            return try store.read { reader in try body(reader, nil) }
        }
        return try store.edit { transaction in
            try body(transaction) { item, json in
                try transaction.saveLocal(item.collection, id: item.id, json: json)
            }
        }
    }
}
