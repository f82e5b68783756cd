import Domain
import Records
import Storage
import Sync
import Testing
import TestSupport

// MARK: - Applying pulled records by the rules

extension ShelfStore {
    /// Applies pulled records the way a pull does (`SyncRules.applyPulled`), expecting
    /// none to be held back by a waiting change.
    func applyPulled(_ records: [RawRecord], to collection: CollectionName) throws {
        let held = try write { tx in try SyncRules(tx).applyPulled(records, to: collection).map(\.record.id) }
        #expect(held.isEmpty)
    }
}

/// The failure a test injects into a store operation.
let injectedFailure = StorageError.sqlite(operation: "injected failure", code: 10, message: "disk I/O error (test)")
