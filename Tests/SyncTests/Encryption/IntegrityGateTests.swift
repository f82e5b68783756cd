import Domain
import Foundation
import Records
import Storage
@testable import Sync
import Testing

/// The rules against a hostile server, one decision at a time: a version the server sent,
/// where it came from, against what the device holds — no store, no server.
@Suite("What a device takes from a hostile server")
struct IntegrityGateTests {
    static let closed = IntegrityGate(policy: IntegrityPolicy(plaintextOpen: false, retiredKeys: ["0000000000000old"]), provenance: [:])
    static let open = IntegrityGate(policy: IntegrityPolicy(plaintextOpen: true), provenance: [:])

    static func record(_ deleted: Bool = false) -> RawRecord {
        RawRecord(id: "b1", lastModified: 50, isDeleted: deleted, json: Data(#"{"id":"b1"}"#.utf8))
    }

    static func sealed(_ sequence: Int64, _ revision: String = "r-new", key: String = "00000000000cur", deletion: Bool = false) -> WireSealing.Provenance {
        .sealed(sequence: sequence, revision: revision, keyID: key, deletion: deletion)
    }

    /// Holds version 5 ("r5") of the record, live.
    static let heldLive = HeldVersion(sequence: 5, revision: "r5", hasRow: true)
    /// Holds the record as it came in the clear (never seen sealed).
    static let heldInTheClear = HeldVersion(hasRow: true)
    /// Saw the record removed by a sealed deletion numbered 7.
    static let removed = HeldVersion(removal: SealedDeletion(sequence: 7, revision: "r7", lastModified: 40))

    @Test(arguments: [
        ("a newer version", sealed(6), heldLive, IntegrityGate.Decision.admit),
        ("the same version stamped again", sealed(5, "r5"), heldLive, .admit),
        ("an older version", sealed(4, "r4"), heldLive, .refuse(.olderVersion)),
        ("another version with the same number, a lesser revision", sealed(5, "r4-other"), heldLive, .refuse(.otherVersionSameNumber)),
        ("another version with the same number, a greater revision", sealed(5, "r6-other"), heldLive, .admit),
        ("a version of a removed record, older than the removal", sealed(6), removed, .refuse(.removedRecordBack)),
        ("the removal itself, listed again", sealed(7, "r7", deletion: true), removed, .admit),
        ("a version made after the removal (recreated)", sealed(8), removed, .admit),
        ("a new record", sealed(1), HeldVersion(), .admit),
        ("a new version under a retired key", sealed(6, key: "0000000000000old"), heldLive, .refuse(.retiredKey)),
        ("the held version, under a retired key", sealed(5, "r5", key: "0000000000000old"), heldLive, .admit),
        ("a reader's deletion, newer", sealed(6, deletion: true), heldLive, .admit),
    ] as [(String, WireSealing.Provenance, HeldVersion, IntegrityGate.Decision)])
    func sealedVersions(_ label: String, _ provenance: WireSealing.Provenance, _ held: HeldVersion, _ expected: IntegrityGate.Decision) {
        #expect(Self.closed.decide(Self.record(), provenance: provenance, held: held) == expected, "\(label)")
    }

    @Test(arguments: [
        ("after the migration, a new id", HeldVersion(), false, IntegrityGate.Decision.refuse(.inTheClear)),
        ("after the migration, over a sealed record", heldLive, false, .refuse(.inTheClear)),
        ("during the migration, a new id", HeldVersion(), true, .admitAndSealAgain),
        ("during the migration, a record held in the clear", heldInTheClear, true, .admitAndSealAgain),
        ("during the migration, over a record seen sealed", heldLive, true, .refuse(.inTheClearOverSealed)),
        ("during the migration, over a removal seen sealed", removed, true, .refuse(.inTheClearOverSealed)),
    ] as [(String, HeldVersion, Bool, IntegrityGate.Decision)])
    func recordsInTheClear(_ label: String, _ held: HeldVersion, _ migrating: Bool, _ expected: IntegrityGate.Decision) {
        let gate = migrating ? Self.open : Self.closed
        #expect(gate.decide(Self.record(), provenance: .plaintext, held: held) == expected, "\(label)")
        // A format 1 envelope has no number: it is taken as a record in the clear is.
        #expect(gate.decide(Self.record(), provenance: .legacySealed, held: held) == expected, "\(label), format 1")
    }

    @Test(arguments: [
        ("over a record seen sealed", heldLive, true, IntegrityGate.Decision.refuse(.deletedWithoutReader)),
        ("over a record held in the clear, never seen sealed (renamed by enable)", heldInTheClear, false, .admit),
        ("over a record held in the clear, during the migration", heldInTheClear, true, .admit),
        ("of a record not held", HeldVersion(), false, .admit),
        ("of a record the reader deleted here too, its deletion waiting", HeldVersion(sequence: 5, revision: "r5", hasRow: true, deletedHere: true, waiting: true), false, .sendDeletionSealed),
        ("of a record deleted here, never sealed", HeldVersion(hasRow: true, deletedHere: true, waiting: true), false, .admit),
    ] as [(String, HeldVersion, Bool, IntegrityGate.Decision)])
    func kintoTombstones(_ label: String, _ held: HeldVersion, _ migrating: Bool, _ expected: IntegrityGate.Decision) {
        let gate = migrating ? Self.open : Self.closed
        #expect(gate.decide(Self.record(true), provenance: .tombstone, held: held) == expected, "\(label)")
    }

    // MARK: - A page's plan

    static func page(_ id: String, _ stamp: Int64, deleted: Bool = false) -> RawRecord {
        RawRecord(id: id, lastModified: stamp, isDeleted: deleted, json: Data(#"{"id":"\#(id)"}"#.utf8))
    }

    /// A whole page through the gate, no store: what it admits, what it refuses, and what it
    /// leaves the store to do, in page order.
    @Test func aPagesPlanKeepsPageOrderAndNamesWhatTheStoreDoes() {
        let gate = IntegrityGate(
            policy: IntegrityPolicy(plaintextOpen: false),
            provenance: ["new": Self.sealed(6), "old": Self.sealed(4, "r4"), "newer": Self.sealed(9)])
        let records = [
            Self.page("new", 10), Self.page("old", 11), Self.page("gone", 12, deleted: true),
            Self.page("mine", 13, deleted: true), Self.page("stray", 14, deleted: true), Self.page("newer", 15),
        ]
        let held: [String: HeldVersion] = [
            "new": Self.heldLive, "old": Self.heldLive, "gone": Self.heldLive, "newer": Self.heldLive,
            "mine": HeldVersion(sequence: 5, revision: "r5", hasRow: true, deletedHere: true, waiting: true),
        ]
        let plan = gate.plan(records, held: held, idsAreUnique: true)

        #expect(plan.admitted.map(\.id) == ["new", "stray", "newer"])
        #expect(plan.refusals.map(\.id) == ["old", "gone"])
        #expect(plan.refusals.map(\.kind) == [.olderVersion, .deletedWithoutReader])
        #expect(plan.refusals.first?.offered == 4 && plan.refusals.first?.held == 5)
        #expect(plan.settled == ["new", "newer"])
        let steps = plan.aftercare.map { step -> String in
            switch step {
            case .keep(let record, let kind, _): "keep \(record.id) (\(kind.rawValue))"
            case .sealDeletionOver(let id, let stamp): "seal the deletion of \(id) over \(stamp)"
            }
        }
        #expect(steps == ["keep old (older_version)", "keep gone (deleted_without_reader)", "seal the deletion of mine over 13"])
    }

    /// A page the gate takes whole is handed back as it came, with nothing for the store to do.
    @Test func aPageTakenWholeLeavesNothingElseToDo() {
        let gate = IntegrityGate(policy: IntegrityPolicy(plaintextOpen: false), provenance: ["a": Self.sealed(1), "b": Self.sealed(1)])
        let plan = gate.plan([Self.page("a", 1), Self.page("b", 2)], held: [:], idsAreUnique: true)
        #expect(plan.admitted.map(\.id) == ["a", "b"])
        #expect(plan.refusals.isEmpty && plan.aftercare.isEmpty && plan.sealAgain.isEmpty)
        #expect(plan.settled == ["a", "b"])
    }

    // MARK: - Where records came from

    /// The opened records' origins, side by side: handed over in order with some left out,
    /// each finds its own; out of order, or one never opened, they are found by id (the
    /// last of an id) or not at all.
    @Test func originsAreFoundInOrderAndByIDOtherwise() {
        let opened = ["a", "b", "c", "b"].enumerated().map { Self.page($0.element, Int64($0.offset + 1)) }
        let origins = IntegrityGate.Origins(opened, [Self.sealed(1), Self.sealed(2), Self.sealed(3), Self.sealed(4)])
        func sequences(_ records: [RawRecord]) -> [Int64?] {
            var cursor = IntegrityGate.Origins.Cursor(origins)
            return records.map { record in
                guard case .sealed(let sequence, _, _, _)? = cursor.origin(of: record) else { return nil }
                return sequence
            }
        }
        #expect(sequences(opened) == [1, 2, 3, 4])
        #expect(sequences([opened[0], opened[2], opened[3]]) == [1, 3, 4], "in order, one left out")
        #expect(sequences([opened[2], opened[0]]) == [3, 1], "out of order: by id")
        #expect(sequences([opened[0], Self.page("b", 9)]) == [1, 2], "a new copy of an opened id in order")
        #expect(sequences([opened[0], Self.page("stray", 9), opened[1]]) == [1, nil, 4], "one never opened: by id from there on, the last of an id")
        #expect(sequences([Self.page("x", 1)]).first == .some(nil))
        let unopened = IntegrityGate.Origins([Self.page("a", 1)], [])
        var cursor = IntegrityGate.Origins.Cursor(unopened)
        #expect(cursor.origin(of: Self.page("a", 1)) == nil, "no origin for a record nothing opened")
    }
}
