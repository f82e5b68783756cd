import Domain
import Foundation
import Services
import Storage

// MARK: - Noticing a server that forgot

/// A server can lose what this store synced: its collection deleted (under Kinto's
/// default bucket the next request silently recreates it, empty, and a `_since` pull
/// then says "nothing changed"), or its database restored from an older backup. Both
/// are noticed from what every run already asks:
/// - the collection object's own `last_modified`, which changes only when the
///   collection is created again — one more GET in the run's first batch;
/// - the records' timestamp (the `_since` answer's ETag), which a restore puts behind
///   what this store saw the server reach (its cursor, or its own pushes' timestamps).
/// A collection found so is pulled again from scratch, and local records the server no
/// longer has are uploaded again (`SyncRules.startRecovery`).
extension SyncRun {
    /// The collections checked for forgetting: those in the reader's own bucket (the
    /// shared catalog is read-only; nothing could be uploaded again).
    func checksServerMemory(_ states: [SyncState]) -> Bool {
        states.contains { !$0.collection.isReadOnly }
    }

    /// Compares what the run's first batch said with what the store remembers, and
    /// starts a recovery for each collection the server forgot.
    /// - Parameters:
    ///   - pulls: each state's `_since` answer, in order.
    ///   - timestamps: each collection object's `last_modified`, by id; nil when not
    ///     asked or not answered.
    /// - Returns: the collections to pull again from scratch.
    func noticeForgetting(
        _ states: [SyncState], pulls: [Result<PageResult, APIError>], listing timestamps: [String: Int64]?
    ) async throws -> Set<CollectionName> {
        var forgotten: [(CollectionName, String, Int64?)] = []
        var learned: [(CollectionName, Int64)] = []
        // NB: a collection whose pull failed is that collection's outcome, not a sign.
        for (state, pull) in zip(states, pulls) where !state.collection.isReadOnly {
            guard case .success(.page(let page)) = pull else { continue }
            var current = timestamps?[state.collection.rawValue]
            if let forgetting = Self.forgetting(state, records: page, collection: current, listed: timestamps != nil) {
                if forgetting == .restored { current = await markRestored(state.collection) ?? current }
                forgotten.append((state.collection, forgetting.description, current))
            } else if let current, current != state.collectionTimestamp {
                learned.append((state.collection, current))
            }
        }
        guard !forgotten.isEmpty || !learned.isEmpty else { return [] }
        try store.write { tx in
            for (collection, _, current) in forgotten {
                try SyncRules(tx).startRecovery(collection, collectionTimestamp: current)
            }
            for (collection, timestamp) in learned {
                try tx.updateSyncState(collection) { $0.collectionTimestamp = timestamp }
            }
        }
        for (collection, reason, _) in forgotten {
            emit(.serverForgot(collection, reason: reason))
            collectionReport(collection) { $0.serverForgot = reason }
        }
        return Set(forgotten.map(\.0))
    }

    /// How a server forgot a collection's records.
    enum Forgetting: CustomStringConvertible {
        case gone, recreated, restored

        var description: String {
            switch self {
            case .gone: "the collection is gone from the server"
            case .recreated: "the collection was deleted and created again on the server"
            case .restored: "the server's records went back to an older state (restored from a backup?)"
            }
        }
    }

    /// Why the server forgot this collection's records, or nil when nothing says so.
    private static func forgetting(_ state: SyncState, records: RecordPage, collection current: Int64?, listed: Bool) -> Forgetting? {
        if listed, let known = state.collectionTimestamp, current != known {
            return current == nil ? .gone : .recreated
        }
        let reached = max(state.cursor ?? 0, state.pushedTimestamp ?? 0)
        if reached > 0, let etag = records.etag?.timestamp, Int64(etag) < reached {
            return .restored
        }
        return nil
    }

    /// After a restore, the records' timestamp moves ahead again as soon as anyone
    /// writes, and a device that syncs later could no longer tell. Touching the
    /// collection object gives it a new timestamp, which every other device notices as
    /// it would a recreated collection, and recovers too.
    /// - Returns: the collection object's new timestamp; nil when the server refused.
    private func markRestored(_ collection: CollectionName) async -> Int64? {
        report.requests += 1
        return try? await KintoCollectionObjects(client: engine.client).touch(KintoCollectionPath(collection))
    }

    /// After a first sync, which pulls collection by collection: remembers each
    /// collection object's timestamp, so that later runs can tell a recreated one. One
    /// request, only while some collection's is unknown; a failure only delays it.
    func learnCollectionTimestamps(_ states: [SyncState]) async {
        guard checksServerMemory(states) else { return }
        guard let known = try? store.read({ reader in try states.map { try reader.syncState($0.collection) } }),
              known.contains(where: { !$0.collection.isReadOnly && $0.collectionTimestamp == nil && $0.lastSuccess != nil })
        else { return }
        report.requests += 1
        guard let timestamps = try? await KintoCollectionObjects(client: engine.client).timestamps(inBucket: KintoCollectionPath.userBucket)
        else { return }
        try? store.write { tx in
            for state in known where !state.collection.isReadOnly && state.collectionTimestamp == nil {
                guard let timestamp = timestamps[state.collection.rawValue] else { continue }
                try tx.updateSyncState(state.collection) { $0.collectionTimestamp = timestamp }
            }
        }
    }
}
