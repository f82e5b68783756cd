import Domain
import Foundation

// MARK: - The last complete sync

/// When this store last synced completely: a run that pulled every collection and sent
/// every change it could send. It is what `shelf status` calls the last sync, kept apart
/// from each collection's `SyncState.lastSuccess` (its last pull, which a read's refresh
/// moves too, and which decides freshness): a run whose push failed pulled, but is no
/// sync a reader may trust. Kept in the device's own `preferences` table, as the
/// router's path is, because it says what this device did.
extension StoreReader {
    /// Nil until a run has synced completely on this store.
    public func lastCompleteSync() throws(StorageError) -> Date? {
        guard let data = try preference(Self.lastCompleteSyncKey) else { return nil }
        guard let milliseconds = Int64(String(decoding: data, as: UTF8.self)) else {
            throw .corruptValue(what: "preference \(Self.lastCompleteSyncKey)", reason: "not a number of milliseconds")
        }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static let lastCompleteSyncKey = "last_complete_sync"
}

extension StoreTransaction {
    /// Records a complete sync that started at `date` (a later one is never replaced by
    /// an earlier one: runs of two processes may end out of order).
    public func recordCompleteSync(at date: Date) throws(StorageError) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        if let known = try lastCompleteSync(), Int64((known.timeIntervalSince1970 * 1000).rounded()) >= milliseconds { return }
        try setPreference(Self.lastCompleteSyncKey, Data(String(milliseconds).utf8))
    }
}
