import Domain
import Foundation
import Records
import Testing
@testable import Storage

// MARK: - Store invariants

/// What must hold between records, outbox and base snapshots after any committed
/// transaction, whoever wrote it (local edits, the sync engine, a killed process).
enum StoreInvariants {
    /// - Returns: a description of each broken invariant; empty when the store is sound.
    static func violations(in store: ShelfStore) throws -> [String] {
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

// MARK: - Random operation sequences

@Suite("Invariants under any sequence of operations")
struct InvariantTests {
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A minimal server: the current version of each record and a clock.
    struct FakeServer {
        var records: [String: RawRecord] = [:]
        var clock: Int64 = 1_000

        mutating func store(_ id: String, title: String) -> RawRecord {
            clock += 1
            let record = Wire.remoteBook(id, title: title, lastModified: clock)
            records[id] = record
            return record
        }

        mutating func delete(_ id: String) -> RawRecord {
            clock += 1
            records[id] = nil
            return Wire.tombstone(id, lastModified: clock)
        }
    }

    @Test(arguments: [1, 2, 3, 4])
    func invariantsHoldAfterEveryStep(seed: UInt64) throws {
        var random = SplitMix(state: seed)
        var server = FakeServer()
        let store = try ShelfStore.testStore()
        let ids = (0..<6).map { "b\($0)" }

        for step in 0..<600 {
            let id = ids.randomElement(using: &random)!
            // NB: force unwraps of randomElement are safe: the arrays are non-empty literals.
            let title = "v\(step)"
            let operation = Int.random(in: 0..<10, using: &random)
            try store.write { tx in
                switch operation {
                case 0, 1:  // the reader saves
                    try tx.saveLocal(.books, id: id, json: Wire.book(id, title: title, author: "R"))
                case 2:  // the reader deletes
                    if try tx.record(.books, id: id) != nil { try tx.deleteLocal(.books, id: id) }
                case 3, 4:  // someone else changes or deletes it on the server; we pull
                    let remote = Bool.random(using: &random) ? server.store(id, title: title) : server.delete(id)
                    if case .pendingLocalChange = try tx.applyRemote(remote, to: .books) {
                        switch Int.random(in: 0..<3, using: &random) {
                        case 0:
                            try tx.rebasePendingChange(.books, id: id, onto: remote, merged: nil)
                        case 1:
                            try tx.discardLocalChange(.books, id: id)
                            _ = try tx.applyRemote(remote, to: .books)
                        default:
                            try tx.recordConflict(Conflict(collection: .books, recordID: id, base: nil, local: nil, remote: remote.json,
                                                           remoteLastModified: remote.lastModified, detectedAt: Date()))
                        }
                    }
                case 5, 6, 7:  // push the first waiting change, maybe with an edit while in flight
                    guard let change = try tx.pendingChanges(limit: 1).first else { return }
                    let pushed = change.entry
                    if Int.random(in: 0..<3, using: &random) == 0 {
                        if Bool.random(using: &random) {
                            try tx.saveLocal(.books, id: pushed.recordID, json: Wire.book(pushed.recordID, title: title + "!", author: "R"))
                        } else if try tx.record(.books, id: pushed.recordID) != nil {
                            try tx.deleteLocal(.books, id: pushed.recordID)
                        }
                    }
                    let answer = pushed.kind == .delete
                        ? server.delete(pushed.recordID)
                        : server.store(pushed.recordID, title: "pushed \(step)")
                    try tx.acknowledgePush(pushed, server: answer)
                case 8:  // the server refuses the first waiting change for good
                    guard let change = try tx.pendingChanges(limit: 1).first else { return }
                    _ = try tx.moveToDeadLetters(change.entry, status: 400, reason: "refused")
                default:  // the reader retries a dead letter, or resolves a conflict
                    if let letter = try tx.deadLetters().first {
                        try tx.requeueDeadLetter(id: letter.id)
                    } else if let conflict = try tx.conflicts().first {
                        try tx.removeConflict(conflict.collection, id: conflict.recordID)
                    }
                }
            }
            let problems = try StoreInvariants.violations(in: store)
            #expect(problems.isEmpty, "seed \(seed), step \(step), operation \(operation): \(problems)")
            if !problems.isEmpty { return }
        }
    }
}
