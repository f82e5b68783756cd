import Domain
import Foundation
import Storage
import Sync
import Testing

@Suite("Pending decisions: conflicts and failed changes as lists show them")
struct PendingDecisionsTests {
    let detected = Date(timeIntervalSince1970: 1_740_000_000)

    private func json(_ text: String) -> Data { Data(text.utf8) }

    @Test func aConflictNamesTheFieldsThatClashAndTheRecordsTitle() throws {
        let store = try ShelfStore.inMemory()
        try store.write { tx in
            try tx.recordConflict(Conflict(
                collection: .books, recordID: "b-1",
                base: json(#"{"id":"b-1","title":"Dune","author_name":"F. Herbert","finished":false}"#),
                local: json(#"{"id":"b-1","title":"Dune (local)","author_name":"Frank Herbert","finished":false}"#),
                remote: json(#"{"id":"b-1","title":"Dune (server)","author_name":"F. Herbert","finished":true}"#),
                remoteLastModified: 2000, detectedAt: detected))
            try tx.recordConflict(Conflict(
                collection: .notes, recordID: "n-1",
                base: json(#"{"id":"n-1","title":"Spice","body":""}"#),
                local: nil,
                remote: json(#"{"id":"n-1","title":"Spice","body":"edited"}"#),
                remoteLastModified: 2001, detectedAt: detected))
        }

        let conflicts = try ConflictResolver(store: store).conflicts()

        #expect(conflicts == [
            ConflictSummary(collection: .books, recordID: "b-1", kind: .fields, fields: ["title"],
                            label: "Dune (local)", detectedAt: detected),
            ConflictSummary(collection: .notes, recordID: "n-1", kind: .deleteVersusEdit, fields: [],
                            label: "Spice", detectedAt: detected),
        ])
    }

    @Test func aRefusedChangeIsListedWithTheIDThatRetriesIt() throws {
        let store = try ShelfStore.inMemory()
        let letter = try store.write { tx in
            let entry = try tx.saveLocal(.books, id: "b-9", json: json(#"{"id":"b-9","title":"Solaris","author_name":"Lem","finished":false}"#))
            return try SyncRules(tx).moveToDeadLetters(entry, status: 400, reason: "Invalid title")
        }
        let resolver = ConflictResolver(store: store)

        let failed = try resolver.failedChanges()
        #expect(failed.map(\.id) == [letter.id])
        #expect(failed.first.map { [$0.recordID, $0.change, $0.reason] } == ["b-9", "create", "Invalid title"])
        #expect(failed.first?.status == 400)
        #expect(failed.first?.collection == .books)

        try resolver.retry(deadLetter: letter.id)
        #expect(try resolver.failedChanges().isEmpty)
    }
}
