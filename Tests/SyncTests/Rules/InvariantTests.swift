import Domain
import Foundation
import Records
import Testing
@testable import Storage
@testable import Sync
import TestSupport

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
                    if case .pendingLocalChange = try SyncRules(tx).applyPulled(remote, to: .books) {
                        switch Int.random(in: 0..<3, using: &random) {
                        case 0:
                            try SyncRules(tx).rebasePendingChange(.books, id: id, onto: remote, merged: nil)
                        case 1:
                            try SyncRules(tx).discardLocalChange(.books, id: id)
                            _ = try SyncRules(tx).applyPulled(remote, to: .books)
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
                    try SyncRules(tx).acknowledgePush(pushed, server: answer)
                case 8:  // the server refuses the first waiting change for good
                    guard let change = try tx.pendingChanges(limit: 1).first else { return }
                    _ = try SyncRules(tx).moveToDeadLetters(change.entry, status: 400, reason: "refused")
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
