import Domain
import Foundation
import PrivateFiles
import Storage

// MARK: - StoreHealthGate

/// Decides when a run checks its store before touching the server, and remembers
/// when it last passed.
///
/// A store damaged on disk can lose a pending edit without an error from the pages a
/// run happens to read; pushing from it, or calling it synced, would make the loss
/// permanent. So SQLite's `quick_check` runs before a sync when the last run holding
/// the lock did not finish (killed, crashed, power cut) and otherwise at least once a
/// day; a pass touches `mark` (`<account>.checked` beside the store).
public struct StoreHealthGate: Sendable {
    /// How old a passed check may be before the next run checks again.
    public static let maximumAge: TimeInterval = 24 * 60 * 60

    public let mark: URL
    public let clock: SyncClock

    public init(mark: URL, clock: SyncClock = .live) {
        self.mark = mark
        self.clock = clock
    }

    /// Whether a check is due: after an unfinished run, without a mark, or when the
    /// mark is older than `maximumAge` (or in the future: a clock that moved back).
    public func isDue(previousRunUnfinished: Bool) -> Bool {
        if previousRunUnfinished { return true }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: mark.path),
              let checked = attributes[.modificationDate] as? Date
        else { return true }
        let age = clock.now().timeIntervalSince(checked)
        return age < 0 || age > Self.maximumAge
    }

    /// Checks `store` when due.
    /// - Returns: the report of the check that ran, or nil when none was due.
    /// - Throws: `DamagedStoreError` when the check found damage (the mark is removed,
    ///   so every later run checks again until the store is repaired), or the
    ///   `StorageError` that kept the check from running.
    @discardableResult
    public func checkIfDue(_ store: ShelfStore, previousRunUnfinished: Bool) throws -> IntegrityReport? {
        guard isDue(previousRunUnfinished: previousRunUnfinished) else { return nil }
        let report = try store.checkIntegrity(.quick)
        guard report.isHealthy else {
            unlink(mark.path)
            throw DamagedStoreError(report: report)
        }
        try PrivateFileWriter.write(Data(), to: mark.path)
        return report
    }
}
