import Domain
import Foundation
import Records
import Storage
import Testing
@testable import Sync

// MARK: - SendingPlanTests

/// Whether and how a change is marked sent, planned without a store (`SendingPlan.plan`):
/// the entry as read and its body against what the store holds now. The lineage and the
/// sequence number a body goes out with are read back from the planned body.
/// `LineageTests` runs the same rule through a store.
@Suite struct SendingPlanTests {
    static func entry(sequence: Int64 = 7, revision: Int64 = 3, sent: Int64? = nil, kind: OutboxEntry.Kind = .update) -> OutboxEntry {
        let now = Date(timeIntervalSince1970: 0)
        return OutboxEntry(sequence: sequence, collection: .books, recordID: "b", kind: kind, baseLastModified: 10,
                           createdAt: now, updatedAt: now, revision: revision, sentRevision: sent,
                           sentBody: sent == nil ? nil : Data(#"{"title":"As sent"}"#.utf8))
    }

    static func json(lineage: [String]?, sequence: Int? = nil, title: String = "Dune") -> Data {
        var members = [#""id":"b""#, #""title":"\#(title)""#]
        if let lineage { members.append(#""\#(VersionFields.lineage)":[\#(lineage.map { #""\#($0)""# }.joined(separator: ","))]"#) }
        if let sequence { members.append(#""\#(VersionFields.sequence)":\#(sequence)"#) }
        return Data("{\(members.joined(separator: ","))}".utf8)
    }

    static let body = Data(#"{"title":"Dune Messiah"}"#.utf8)

    /// What a planned mark says: the lineage and number its body carries, the revision id it adds.
    struct Marked: Equatable, CustomStringConvertible {
        var lineage: [String]?
        var sequence: Int?
        var lineageID: String?
        var hasBody: Bool
        var description: String { "lineage \(lineage ?? []), sequence \(sequence.map(String.init) ?? "none"), adds \(lineageID ?? "none")" }
    }

    enum Outcome: Equatable {
        case notSent
        case alreadyInFlight
        case marked(Marked)
    }

    static func outcome(_ plan: SendingPlan) throws -> Outcome {
        switch plan {
        case .notSent: return .notSent
        case .alreadyInFlight: return .alreadyInFlight
        case .markSent(let sent, let body, let lineageID):
            #expect(sent.sentBody == body && sent.sentLineageID == lineageID && sent.sentRevision == sent.revision)
            guard let body else { return .marked(Marked(lineage: nil, sequence: nil, lineageID: lineageID, hasBody: false)) }
            let fields = try WireJSON.fields(body)
            var lineage: [String]?
            if case .array(let ids)? = fields[RecordLineage.field] { lineage = ids.compactMap(\.stringValue) }
            return .marked(Marked(
                lineage: lineage,
                sequence: fields[VersionFields.sequence]?.intValue, lineageID: lineageID, hasBody: true))
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        var entry = SendingPlanTests.entry()
        var body: Data? = SendingPlanTests.body
        var numbered = false
        let read: SendingRead
        let outcome: Outcome
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "the entry went away since it was read: not sent",
             read: SendingRead(current: nil), outcome: .notSent),
        Case(name: "a new entry replaced it: not sent",
             read: SendingRead(current: entry(sequence: 8)), outcome: .notSent),
        Case(name: "edited since it was read: not sent, the next batch reads it again",
             read: SendingRead(current: entry(revision: 4)), outcome: .notSent),
        Case(name: "already in flight: it goes again as it went",
             read: SendingRead(current: entry(sent: 3)), outcome: .alreadyInFlight),
        Case(name: "an update: the base's lineage and a new revision id",
             read: SendingRead(current: entry(), base: json(lineage: ["r1"]), row: json(lineage: ["r1"], title: "Mine")),
             outcome: .marked(Marked(lineage: ["r1", "new"], sequence: nil, lineageID: "new", hasBody: true))),
        Case(name: "a create (no base): the row's lineage, none here, and a new revision id",
             entry: entry(kind: .create), read: SendingRead(current: entry(), base: nil, row: json(lineage: nil)),
             outcome: .marked(Marked(lineage: ["new"], sequence: nil, lineageID: "new", hasBody: true))),
        Case(name: "an unchanged record uploaded again: the version it was, no new revision",
             read: SendingRead(current: entry(), base: json(lineage: ["r1"]), row: json(lineage: ["r1"])),
             outcome: .marked(Marked(lineage: ["r1"], sequence: nil, lineageID: nil, hasBody: true))),
        Case(name: "a plaintext deletion: no body, a Kinto tombstone",
             entry: entry(kind: .delete), body: nil, read: SendingRead(current: entry()),
             outcome: .marked(Marked(lineage: nil, sequence: nil, lineageID: nil, hasBody: false))),
        Case(name: "numbered: one more than the highest sequence the device knows (the row's here)",
             numbered: true,
             read: SendingRead(current: entry(), base: json(lineage: ["r1"], sequence: 4), row: json(lineage: ["r1"], sequence: 5, title: "Mine")),
             outcome: .marked(Marked(lineage: ["r1", "new"], sequence: 6, lineageID: "new", hasBody: true))),
        Case(name: "numbered, an unchanged version uploaded again keeps its number",
             numbered: true,
             read: SendingRead(current: entry(), base: json(lineage: ["r1"], sequence: 4), row: json(lineage: ["r1"], sequence: 4)),
             outcome: .marked(Marked(lineage: ["r1"], sequence: 4, lineageID: nil, hasBody: true))),
        Case(name: "numbered, a record brought back after a sealed deletion: past the deletion's number",
             entry: entry(kind: .create), numbered: true,
             read: SendingRead(current: entry(), base: nil, row: json(lineage: nil), sealedDeletionSequence: 9),
             outcome: .marked(Marked(lineage: ["new"], sequence: 10, lineageID: "new", hasBody: true))),
        Case(name: "numbered, the deletion of a record seen sealed: a sealed deletion with its lineage and number",
             entry: entry(kind: .delete), body: nil, numbered: true,
             read: SendingRead(current: entry(), base: json(lineage: ["r1"], sequence: 2), row: json(lineage: ["r1"], sequence: 2)),
             outcome: .marked(Marked(lineage: ["r1", "new"], sequence: 3, lineageID: "new", hasBody: true))),
        Case(name: "numbered, the deletion of a record never sealed: a Kinto tombstone",
             entry: entry(kind: .delete), body: nil, numbered: true,
             read: SendingRead(current: entry(), base: json(lineage: ["gr"]), row: json(lineage: ["gr"])),
             outcome: .marked(Marked(lineage: nil, sequence: nil, lineageID: nil, hasBody: false))),
    ]

    @Test(arguments: cases)
    func theMarkFollowsTheTable(_ row: Case) throws {
        let plan = try SendingPlan.plan(row.entry, body: row.body, numbered: row.numbered, read: row.read, newLineageID: "new")
        #expect(try Self.outcome(plan) == row.outcome)
    }

    @Test func aNewRevisionIDIsMadeOnlyForANewWrite() throws {
        var made = 0
        func newID() -> String { made += 1; return "new" }
        let read = SendingRead(current: Self.entry(), base: Self.json(lineage: ["r1"]), row: Self.json(lineage: ["r1"]))
        _ = try SendingPlan.plan(Self.entry(), body: Self.body, numbered: false, read: read, newLineageID: newID())
        #expect(made == 0)
        _ = try SendingPlan.plan(Self.entry(), body: Self.body, numbered: false,
                                 read: SendingRead(current: Self.entry(), base: Self.json(lineage: ["r1"]), row: Self.json(lineage: ["r1"], title: "Mine")),
                                 newLineageID: newID())
        #expect(made == 1)
    }

    @Test func aBodyThatIsNoObjectIsRefused() {
        #expect(throws: StorageError.self) {
            _ = try SendingPlan.plan(Self.entry(), body: Data("[1]".utf8), numbered: false,
                                     read: SendingRead(current: Self.entry()), newLineageID: "new")
        }
    }
}
