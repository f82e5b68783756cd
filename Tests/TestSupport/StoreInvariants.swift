import Domain
import Foundation
// NB: `@testable` reads the tables directly (`reader.db`); this target is built only
// for the tests, in debug, where Storage is compiled with testing enabled.
@testable import Storage

// MARK: - Store invariants

/// What must hold between records, outbox and base snapshots after any committed
/// transaction, whoever wrote it (local edits, the sync engine, a killed process).
public enum StoreInvariants {
    /// - Returns: a description of each broken invariant; empty when the store is sound.
    public static func violations(in store: ShelfStore) throws -> [String] {
        try store.read { reader in
            var problems: [String] = []
            if try reader.integrityCheck() != ["ok"] { problems.append("integrity_check failed") }
            problems += try reader.foreignKeyViolations().map { "foreign key: \($0)" }

            let rows = try reader.db.query(
                "SELECT \(StoreReader.recordColumns) FROM records", operation: "test: all records", row: StoreReader.storedRecord
            )
            let entries = try reader.pendingChanges(skippingConflicts: false).map(\.entry)
            let bases = try reader.db.query(
                "SELECT collection, id, last_modified FROM base_snapshots", operation: "test: all bases"
            ) { row in "\(row.text(0))/\(row.text(1))" }
            let entryByKey = Dictionary(uniqueKeysWithValues: entries.map { ("\($0.collection.rawValue)/\($0.recordID)", $0) })
            let rowByKey = Dictionary(uniqueKeysWithValues: rows.map { ("\($0.collection.rawValue)/\($0.id)", $0) })

            for row in rows {
                let key = "\(row.collection.rawValue)/\(row.id)"
                let entry = entryByKey[key]
                if row.lastModified == nil && entry?.kind != .create { problems.append("\(key): never synced but no create queued") }
                if row.isDeleted && entry?.kind != .delete { problems.append("\(key): hidden but no delete queued") }
            }
            for entry in entries {
                let key = "\(entry.collection.rawValue)/\(entry.recordID)"
                guard let row = rowByKey[key] else { problems.append("\(key): entry without record"); continue }
                let base = try reader.base(entry.collection, id: entry.recordID)
                switch entry.kind {
                case .create:
                    if base != nil { problems.append("\(key): create with a base snapshot") }
                    if row.lastModified != nil || row.isDeleted { problems.append("\(key): create of a synced or hidden row") }
                case .update, .delete:
                    if base?.lastModified != entry.baseLastModified { problems.append("\(key): base snapshot does not match the entry's base") }
                    if row.lastModified != entry.baseLastModified { problems.append("\(key): row timestamp differs from the entry's base") }
                    if row.isDeleted != (entry.kind == .delete) { problems.append("\(key): hidden flag differs from the entry kind") }
                }
            }
            for key in bases where entryByKey[key].map({ $0.kind == .create }) ?? true {
                problems.append("\(key): base snapshot without a waiting update or delete")
            }
            return problems
        }
    }
}

// MARK: - The id index

/// Whether the records' id index is there (a bulk load leaves it out: `IdentityIndex`).
public enum IdentityIndexProbe {
    public static func isPresent(_ store: ShelfStore) throws -> Bool {
        try store.withConnection { connection throws(StorageError) in try IdentityIndex.isPresent(connection) }
    }
}
