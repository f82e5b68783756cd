import Domain
import Foundation
import Storage
import Testing
@testable import Sync

// MARK: - PushAcknowledgementTests

/// What the server's acknowledgement of a pushed change does, decided without a store
/// (`PushAcknowledgement.decide`): the entry as it was sent against the record's entry
/// now. The in-flight scenarios of `InFlightTests` (a create acknowledged with a later
/// deletion queued, an acknowledgement with no later edit) are rows here.
@Suite struct PushAcknowledgementTests {
    static func entry(sequence: Int64, revision: Int64, sent: Int64?, kind: OutboxEntry.Kind = .update) -> OutboxEntry {
        let now = Date(timeIntervalSince1970: 0)
        return OutboxEntry(sequence: sequence, collection: .books, recordID: "b", kind: kind, baseLastModified: 10,
                           createdAt: now, updatedAt: now, revision: revision, sentRevision: sent)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let current: OutboxEntry?
        var deletedHere = false
        let decision: PushAcknowledgement
        var testDescription: String { name }
    }

    /// The pushed change: entry 7, sent at its revision 3.
    static let pushed = entry(sequence: 7, revision: 3, sent: 3)

    static let cases: [Case] = [
        Case(name: "nothing changed since it was sent: settled",
             current: entry(sequence: 7, revision: 3, sent: 3), decision: .settled),
        Case(name: "edited after it was sent: the newer state stays queued",
             current: entry(sequence: 7, revision: 4, sent: 3), decision: .changedSinceSent(deletedHere: false)),
        Case(name: "a create sent, then deleted here: the deletion is queued against the server's version",
             current: entry(sequence: 7, revision: 4, sent: 3, kind: .delete), deletedHere: true,
             decision: .changedSinceSent(deletedHere: true)),
        Case(name: "the entry no longer says what was sent: the pushed revision counts",
             current: entry(sequence: 7, revision: 3, sent: nil), decision: .settled),
        Case(name: "a new entry replaced the pushed one (sequences are never reused): changed since sent",
             current: entry(sequence: 8, revision: 3, sent: 3), decision: .changedSinceSent(deletedHere: false)),
        Case(name: "the entry was discarded meanwhile: the row follows the server",
             current: nil, decision: .entryVanished),
    ]

    @Test(arguments: cases)
    func theDecisionFollowsTheTable(_ row: Case) {
        #expect(PushAcknowledgement.decide(pushed: Self.pushed, current: row.current, deletedHere: row.deletedHere) == row.decision)
    }
}
