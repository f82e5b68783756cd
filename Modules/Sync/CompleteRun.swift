import Domain
import Foundation
import Storage

// MARK: - What a run met

extension SyncRun {
    /// What `RunConclusion` decides a finished run's outcome from: the conflicts and
    /// refused changes waiting in the store, the collections the server refused this run,
    /// what a hostile server did, changes a read-only server held back, and whether the
    /// run covered the whole account.
    func conclusionFacts() throws -> RunConclusion.Facts {
        let (conflicts, deadLetters) = try store.read { reader in (try reader.conflictCount(), try reader.deadLetterCount()) }
        let refusals = { (collections: [CollectionName]) in
            collections.compactMap { collection in
                self.unavailable[collection].map { RunConclusion.Refusal(collection: collection, reason: $0) }
            }
        }
        let optional = unavailable.keys.filter { options.optionalCollections.contains($0) }.sorted()
        return RunConclusion.Facts(
            conflicts: conflicts,
            deadLetters: deadLetters,
            refusedRequired: refusals(requiredUnavailable),
            refusedOptional: refusals(optional),
            integrity: try integrityNotes(),
            waitingForWritableServer: waitingForWritableServer,
            coversTheAccount: options.pulls && options.pushes && Set(options.collections) == Set(CollectionName.allCases))
    }
}
