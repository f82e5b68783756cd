import Domain
import Testing
@testable import Sync

// MARK: - RunConclusionTests

/// How a run that did all its steps ends, decided without a store or a server
/// (`RunConclusion.conclude`): what the run met against its outcome (and so its exit
/// status), its message, and whether it is recorded as the last complete sync. A run
/// says "synced" only when nothing below happened.
@Suite struct RunConclusionTests {
    typealias Facts = RunConclusion.Facts
    typealias Refusal = RunConclusion.Refusal

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let facts: Facts
        let outcome: RunOutcome
        let message: String
        let isComplete: Bool
        var testDescription: String { name }
    }

    static let noKey = "no key for this encrypted account: 'shelf encryption join'"
    static let noCatalog = "unavailable: the server has no shop catalog"

    static let cases: [Case] = [
        Case(name: "nothing met: synced, and recorded as complete",
             facts: Facts(), outcome: .synced, message: "synced", isComplete: true),
        Case(name: "an optional collection the server lacks: still synced, with a note",
             facts: Facts(refusedOptional: [Refusal(collection: .products, reason: noCatalog)]),
             outcome: .synced, message: "synced; \(noCatalog)", isComplete: true),
        Case(name: "one conflict: needs a person, counted in the singular",
             facts: Facts(conflicts: 1), outcome: .needsAttention,
             message: "1 conflict to resolve ('shelf conflicts')", isComplete: true),
        Case(name: "conflicts and dead letters: both said, conflicts first",
             facts: Facts(conflicts: 2, deadLetters: 3), outcome: .needsAttention,
             message: "2 conflicts to resolve ('shelf conflicts'); 3 changes refused by the server ('shelf failed')",
             isComplete: true),
        Case(name: "required collections refused for one reason: said once, with the collections; not complete",
             facts: Facts(refusedRequired: [Refusal(collection: .books, reason: noKey), Refusal(collection: .notes, reason: noKey),
                                            Refusal(collection: .tasks, reason: noKey)]),
             outcome: .needsAttention, message: "books, notes, tasks: \(noKey)", isComplete: false),
        Case(name: "what a hostile server did: needs a person, after the counts and before the refusals",
             facts: Facts(deadLetters: 1, refusedRequired: [Refusal(collection: .cart, reason: "HTTP 403")],
                          refusedOptional: [Refusal(collection: .products, reason: noCatalog)],
                          integrity: ["the server put back 2 older versions (refused; this device's go back)"]),
             outcome: .needsAttention,
             message: "1 change refused by the server ('shelf failed'); the server put back 2 older versions (refused; this device's go back); cart: HTTP 403; \(noCatalog)",
             isComplete: false),
        Case(name: "changes held back by a read-only server: a temporary failure, never synced",
             facts: Facts(waitingForWritableServer: 2), outcome: .temporaryFailure,
             message: "the server is read-only: 2 local changes wait until it accepts writes (its changes were pulled)",
             isComplete: false),
        Case(name: "one change held back, and the catalog missing",
             facts: Facts(refusedOptional: [Refusal(collection: .products, reason: noCatalog)], waitingForWritableServer: 1),
             outcome: .temporaryFailure,
             message: "the server is read-only: 1 local change wait until it accepts writes (its changes were pulled); \(noCatalog)",
             isComplete: false),
        Case(name: "a conflict on a read-only server: the person is asked first, and the run was complete",
             facts: Facts(conflicts: 1, waitingForWritableServer: 2), outcome: .needsAttention,
             message: "1 conflict to resolve ('shelf conflicts')", isComplete: true),
        Case(name: "a run of some collections (a read's refresh, --collection, --pull-only): synced, not complete",
             facts: Facts(coversTheAccount: false), outcome: .synced, message: "synced", isComplete: false),
    ]

    @Test(arguments: cases)
    func theConclusionFollowsTheTable(_ row: Case) {
        let conclusion = RunConclusion.conclude(row.facts)
        #expect(conclusion == RunConclusion(outcome: row.outcome, message: row.message, isComplete: row.isComplete))
    }

    @Test func reasonsKeepTheOrderTheyWereFirstMetIn() {
        let said = RunConclusion.byReason([
            Refusal(collection: .tasks, reason: "HTTP 403"), Refusal(collection: .books, reason: Self.noKey),
            Refusal(collection: .notes, reason: "HTTP 403"),
        ])
        #expect(said == ["tasks, notes: HTTP 403", "books: \(Self.noKey)"])
    }
}
