import Domain
import Foundation
import Records
import Synchronization
import Testing
import TestSupport
@testable import Storage

// MARK: - Store helpers

extension ShelfStore {
    /// An in-memory store whose clock the test controls, with faults injected.
    static func testStore(clock: TestClock = TestClock(), faults: FaultInjection) throws -> ShelfStore {
        var configuration = Configuration(clock: clock.clock)
        configuration.faults = faults
        return try ShelfStore.inMemory(configuration: configuration)
    }

    /// Stores pulled records as the server has them (`storePulled`), for a test's data.
    func seed(_ records: [RawRecord], to collection: CollectionName) throws {
        try write { tx in try tx.storePulled(records, in: collection) }
    }
}

/// The failure a test injects into a store operation.
let injectedFailure = StorageError.sqlite(operation: "injected failure", code: 10, message: "disk I/O error (test)")
