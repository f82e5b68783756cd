import Domain
import Foundation
import Services
import Storage

// MARK: - Collections fail alone

extension SyncRun {
    /// The error as one collection's own permanent trouble — the server refuses that
    /// collection (403) or does not have it (404) — or nil for anything else, which
    /// concerns the whole run (credentials, network, throttling, the store).
    static func collectionFailure(_ error: any Error) -> APIError? {
        guard let api = error as? APIError else { return nil }
        switch api {
        case .forbidden, .notFound: return api
        default: return nil
        }
    }

    /// Runs one collection's step; a permanent failure of that collection is recorded
    /// as its outcome and the run goes on with the others.
    func isolating(_ collection: CollectionName, _ step: () async throws -> Void) async throws {
        do {
            try await step()
        } catch let held as CollectionHeld {
            try hold(collection, reason: held.reason)
        } catch {
            guard let failure = Self.collectionFailure(error) else { throw error }
            try markUnavailable(collection, failure)
        }
    }

    /// Records that the server refused `collection` this run.
    func markUnavailable(_ collection: CollectionName, _ failure: APIError) throws {
        try hold(collection, reason: Self.unavailableReason(collection, failure, optional: options.optionalCollections.contains(collection)))
    }

    /// Leaves `collection` alone for the rest of the run, saying why: in the report, as
    /// an event, and in that collection's sync state only (the others keep theirs).
    func hold(_ collection: CollectionName, reason: String) throws {
        unavailable[collection] = reason
        report.unavailable[collection.rawValue] = reason
        let at = now
        try store.write { tx in
            try tx.updateSyncState(collection) { state in
                state.lastError = SyncState.unavailablePrefix + reason
                state.lastErrorAt = at
                state.nextPage = nil
            }
        }
        emit(.collectionUnavailable(collection, reason: reason))
    }

    /// Why, in words a reader can act on.
    static func unavailableReason(_ collection: CollectionName, _ failure: APIError, optional: Bool) -> String {
        let status = failure.status.map { "HTTP \($0)" } ?? "refused"
        if collection == .products {
            return "the server offers no shop catalog (\(KintoCollectionPath(collection)) answered \(status)); "
                + "products and the cart's prices stay empty"
        }
        let what = failure.status == 404 ? "does not have" : "does not let this account read"
        return "the server \(what) \(KintoCollectionPath(collection)) (\(status))"
            + (optional ? "" : "; its local changes wait")
    }

    /// Collections whose trouble makes the run need a person: those not optional.
    var requiredUnavailable: [CollectionName] {
        unavailable.keys.filter { !options.optionalCollections.contains($0) }.sorted()
    }
}

// MARK: - A collection refused

extension SyncState {
    /// How `hold` begins a collection's `lastError`.
    static let unavailablePrefix = "unavailable: "

    /// The server refused the collection (or it was left alone) at its last try, and it
    /// has not synced since: the next run asks for it in its batch with the others.
    var wasRefused: Bool { lastSuccess == nil && lastError?.hasPrefix(Self.unavailablePrefix) == true }
}
