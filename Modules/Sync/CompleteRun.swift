import Domain
import Foundation
import Storage

// MARK: - A complete run

extension SyncRun {
    /// Whether this run synced everything it had to: every collection of the account
    /// pulled (an optional one the server lacks aside) and every change it could send
    /// pushed. Conflicts and refused changes wait for the reader and are counted on
    /// their own; a push the server failed, a read-only server holding changes back, a
    /// required collection refused, or a run of some collections (a read's refresh,
    /// `shelf sync --collection`) is not complete.
    var isComplete: Bool {
        options.pulls && options.pushes && Set(options.collections) == Set(CollectionName.allCases)
            && requiredUnavailable.isEmpty
            && (report.outcome == .synced || report.outcome == .needsAttention)
    }

    /// Records the run as the store's last complete sync (`shelf status`'s "last sync")
    /// when it was one; called once the outcome is known.
    func recordIfComplete() throws {
        guard isComplete else { return }
        let started = report.startedAt
        try store.write { tx in try tx.recordCompleteSync(at: started) }
    }

    /// The refused collections' reasons, each reason once with the collections it hit:
    /// a device without an encrypted account's key says so once, not once per collection.
    func refusedByReason(_ collections: [CollectionName]) -> [String] {
        var reasons: [String] = []
        var hit: [String: [String]] = [:]
        for collection in collections {
            guard let reason = unavailable[collection] else { continue }
            if hit[reason] == nil { reasons.append(reason) }
            hit[reason, default: []].append(collection.rawValue)
        }
        return reasons.map { reason in "\(hit[reason, default: []].joined(separator: ", ")): \(reason)" }
    }
}
