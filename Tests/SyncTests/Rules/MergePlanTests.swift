import Domain
import Foundation
import Records
import Storage
import Testing
@testable import Sync

// MARK: - MergePlanTests

/// What a pulled record does to a record with a waiting (or in-flight) local change,
/// decided without a store (`MergeApplier.plan`): a table of what the store holds, what
/// the server has and the policy, each with the plan it must give.
@Suite struct MergePlanTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func json(_ fields: [String: String]) -> Data {
        let members = fields.sorted { $0.key < $1.key }.map { #""\#($0.key)":"\#($0.value)""# }
        return Data("{\(members.joined(separator: ","))}".utf8)
    }

    static func remote(_ fields: [String: String], stamp: Int64 = 200) -> RawRecord {
        var fields = fields
        fields["id"] = "b"
        return RawRecord(id: "b", lastModified: stamp, json: json(fields))
    }

    static func waiting(_ kind: OutboxEntry.Kind, sent: [String: String]? = nil) -> OutboxEntry {
        OutboxEntry(sequence: 1, collection: .books, recordID: "b", kind: kind, baseLastModified: kind == .create ? nil : 100,
                    createdAt: now, updatedAt: now, revision: 1,
                    sentRevision: sent == nil ? nil : 1, sentBody: sent.map { json($0.merging(["id": "b"]) { a, _ in a }) })
    }

    static let base = ["id": "b", "title": "Dune", "author": "Herbert"]

    /// The plan in words, and the merged content's fields when it rebases.
    static func describe(_ plan: MergeApplier.Plan) throws -> (String, [String: String]?) {
        switch plan {
        case .acknowledge(_, let server):
            return ("acknowledge \(server.isDeleted ? "tombstone" : "record")", nil)
        case .takeRemote(let remote, let drops, let discarded):
            return ("take \(remote.isDeleted ? "tombstone" : "remote")\(drops ? ", drop local" : "")"
                    + "\(discarded == nil ? "" : ", say what was dropped")", nil)
        case .rebase(_, let merged, let discarded):
            let fields = try merged.map { try JSONSerialization.jsonObject(with: $0) as? [String: String] ?? [:] }
            return ("rebase\(merged == nil ? " a deletion" : "")\(discarded == nil ? "" : ", say what was dropped")", fields)
        case .recordConflict(let conflict, _):
            #expect(conflict.detectedAt == now && conflict.recordID == "b")
            return ("conflict", nil)
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let policy: ConflictPolicy
        let waiting: OutboxEntry?
        let local: [String: String]?
        let remote: RawRecord?
        let plan: String
        var merged: [String: String]? = nil
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "no local change: the server's version is taken",
             policy: .manual, waiting: nil, local: base, remote: remote(["title": "Dune", "author": "F. Herbert"]),
             plan: "take remote"),
        Case(name: "different fields changed: merged, and the merge waits to be pushed",
             policy: .manual, waiting: waiting(.update), local: ["id": "b", "title": "Dune!", "author": "Herbert"],
             remote: remote(["title": "Dune", "author": "F. Herbert"]),
             plan: "rebase", merged: ["id": "b", "title": "Dune!", "author": "F. Herbert"]),
        Case(name: "the same field changed both ways: a conflict for the reader",
             policy: .manual, waiting: waiting(.update), local: ["id": "b", "title": "Mine", "author": "Herbert"],
             remote: remote(["title": "Theirs", "author": "Herbert"]), plan: "conflict"),
        Case(name: "the same field, server wins: the server's version, and what was dropped is said",
             policy: .serverWins, waiting: waiting(.update), local: ["id": "b", "title": "Mine", "author": "Herbert"],
             remote: remote(["title": "Theirs", "author": "Herbert"]), plan: "take remote, drop local, say what was dropped"),
        Case(name: "the same field, client wins: the local value goes up again",
             policy: .clientWins, waiting: waiting(.update), local: ["id": "b", "title": "Mine", "author": "Herbert"],
             remote: remote(["title": "Theirs", "author": "Herbert"]),
             plan: "rebase", merged: ["id": "b", "title": "Mine", "author": "Herbert"]),
        Case(name: "both made the same change: nothing left to push",
             policy: .manual, waiting: waiting(.update), local: ["id": "b", "title": "Same", "author": "Herbert"],
             remote: remote(["title": "Same", "author": "Herbert"]), plan: "take remote, drop local"),
        Case(name: "an update in flight that the server holds as sent: its own echo, acknowledged",
             policy: .manual, waiting: waiting(.update, sent: ["title": "Sent", "author": "Herbert"]),
             local: ["id": "b", "title": "Sent", "author": "Herbert"],
             remote: remote(["title": "Sent", "author": "Herbert"]), plan: "acknowledge record"),
        Case(name: "a deletion in flight and the record gone: acknowledged",
             policy: .manual, waiting: waiting(.delete, sent: [:]), local: nil, remote: nil, plan: "acknowledge tombstone"),
        Case(name: "a local edit of a record the server deleted: a conflict for the reader",
             policy: .manual, waiting: waiting(.update), local: ["id": "b", "title": "Mine", "author": "Herbert"],
             remote: RawRecord(id: "b", lastModified: 300, isDeleted: true, json: Data(#"{"id":"b","deleted":true}"#.utf8)),
             plan: "conflict"),
        Case(name: "a local edit of a record the server deleted, server wins: the deletion, and what was dropped is said",
             policy: .serverWins, waiting: waiting(.update), local: ["id": "b", "title": "Mine", "author": "Herbert"],
             remote: RawRecord(id: "b", lastModified: 300, isDeleted: true, json: Data(#"{"id":"b","deleted":true}"#.utf8)),
             plan: "take tombstone, drop local, say what was dropped"),
    ]

    @Test(arguments: cases)
    func thePlanFollowsTheTable(_ row: Case) throws {
        let merger = MergeApplier(policy: row.policy, now: Self.now)
        let read = MergeApplier.Read(waiting: row.waiting, base: Self.json(Self.base), local: row.local.map(Self.json))
        let plan = try merger.plan(.books, id: "b", remote: row.remote, read: read)
        let (words, merged) = try Self.describe(plan)
        #expect(words == row.plan)
        #expect(merged == row.merged)
    }
}
