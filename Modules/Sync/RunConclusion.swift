import Domain
import Foundation

// MARK: - RunConclusion

/// How a run that did all its steps ends: its outcome, its one-line message, and whether
/// it counts as the store's last complete sync — decided as a value from what the run met,
/// with no store and no server (`RunConclusionTests`). `SyncRun.finishSuccessfully` reads
/// the facts and writes the conclusion down.
///
/// Conflicts, dead letters, a required collection the server refused, or what a hostile
/// server did make the run need a person (exit 1). An optional collection the server lacks
/// is only a note in the message of a `synced` run (exit 0), which is what a cron job
/// wants. Changes held back by a read-only server make it a temporary failure (exit 75):
/// they go next time. A run says "synced" only when none of these happened.
struct RunConclusion: Equatable {
    /// A collection the server refused for good this run, and why.
    struct Refusal: Equatable {
        var collection: CollectionName
        var reason: String
    }

    /// What the run met, read at its end.
    struct Facts: Equatable {
        var conflicts = 0
        var deadLetters = 0
        /// Required collections refused, in the account's order.
        var refusedRequired: [Refusal] = []
        /// Optional collections refused (a Kinto without the shop catalog): noted only.
        var refusedOptional: [Refusal] = []
        /// What a hostile server did, already in words (`SyncRun.integrityNotes`).
        var integrity: [String] = []
        /// Local changes left unsent because the server is read-only.
        var waitingForWritableServer = 0
        /// The run pulled and pushed every collection of the account (not a read's
        /// refresh, not `shelf sync --collection`, not `--pull-only` or `--push-only`).
        var coversTheAccount = true
    }

    var outcome: RunOutcome
    var message: String
    /// The run is recorded as the store's last complete sync (`shelf status`'s "last sync").
    var isComplete: Bool

    static func conclude(_ facts: Facts) -> RunConclusion {
        let notes = facts.refusedOptional.map(\.reason)
        let outcome: RunOutcome
        let message: String
        if facts.conflicts > 0 || facts.deadLetters > 0 || !facts.refusedRequired.isEmpty || !facts.integrity.isEmpty {
            outcome = .needsAttention
            var parts: [String] = []
            if facts.conflicts > 0 {
                parts.append("\(counted(facts.conflicts, "conflict")) to resolve ('shelf conflicts')")
            }
            if facts.deadLetters > 0 {
                parts.append("\(counted(facts.deadLetters, "change")) refused by the server ('shelf failed')")
            }
            message = (parts + facts.integrity + byReason(facts.refusedRequired) + notes).joined(separator: "; ")
        } else if facts.waitingForWritableServer > 0 {
            outcome = .temporaryFailure
            let waiting = "the server is read-only: \(counted(facts.waitingForWritableServer, "local change")) wait until it accepts writes"
            message = ([waiting + " (its changes were pulled)"] + notes).joined(separator: "; ")
        } else {
            outcome = .synced
            message = (["synced"] + notes).joined(separator: "; ")
        }
        // NB: conflicts and refused changes wait for the reader and are counted on their
        // own; a read-only server holding changes back, or a required collection refused,
        // is no complete sync.
        let isComplete = facts.coversTheAccount && facts.refusedRequired.isEmpty
            && (outcome == .synced || outcome == .needsAttention)
        return RunConclusion(outcome: outcome, message: message, isComplete: isComplete)
    }

    /// Each reason once, with the collections it hit: a device without an encrypted
    /// account's key says so once, not once per collection.
    static func byReason(_ refusals: [Refusal]) -> [String] {
        var reasons: [String] = []
        var hit: [String: [String]] = [:]
        for refusal in refusals {
            if hit[refusal.reason] == nil { reasons.append(refusal.reason) }
            hit[refusal.reason, default: []].append(refusal.collection.rawValue)
        }
        return reasons.map { reason in "\(hit[reason, default: []].joined(separator: ", ")): \(reason)" }
    }

    /// `1 conflict`, `2 conflicts`.
    private static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
