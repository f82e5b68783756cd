import Domain
import Foundation
import Records
import Storage
import Sync
import Testing

/// Conflicts judged field by field in one store: what `conflicts show` lists, what a
/// per-field resolution writes and queues, and every decision that does not fit.
@Suite("Conflict decisions: per field, written values, the editor's form")
struct ConflictDecisionsTests {
    static let detected = Date(timeIntervalSince1970: 1_740_000_000)
    static let base = #"{"id":"b-1","title":"Dispossessed","author_name":"Le Guin","finished":false,"pages":300}"#
    static let local = #"{"id":"b-1","title":"The Dispossessed","author_name":"Le Guin","finished":true,"pages":320}"#
    static let remote = #"{"id":"b-1","title":"Dispossessed: A Utopia","author_name":"Ursula K. Le Guin","finished":false,"pages":310,"last_modified":2000}"#

    /// A store holding book b-1 synced at 1000 (`base`), edited here (`local`) and found
    /// in conflict with the server's version at 2000 (`remote`), as a sync leaves it.
    private func conflicted(local: String? = ConflictDecisionsTests.local, remote: String? = ConflictDecisionsTests.remote) throws -> ShelfStore {
        let store = try ShelfStore.inMemory()
        try store.write { tx in
            _ = try SyncRules(tx).applyPulled(RawRecord(id: "b-1", lastModified: 1000, json: Data(Self.base.utf8)), to: .books)
            if let local {
                try tx.saveLocal(.books, id: "b-1", json: Data(local.utf8))
            } else {
                try tx.deleteLocal(.books, id: "b-1")
            }
            try tx.recordConflict(Conflict(
                collection: .books, recordID: "b-1", base: Data(Self.base.utf8), local: local.map { Data($0.utf8) },
                remote: remote.map { Data($0.utf8) }, remoteLastModified: 2000, detectedAt: Self.detected))
        }
        return store
    }

    private func fields(_ store: ShelfStore) throws -> [String: JSONValue] {
        let record = try #require(try store.record(.books, id: "b-1"))
        return try JSONDecoder().decode([String: JSONValue].self, from: record.json)
    }

    // MARK: Showing

    @Test func theDetailListsEveryChangedFieldWithItsThreeValuesAndTheClashes() throws {
        let detail = try ConflictResolver(store: try conflicted()).detail(.books, id: "b-1")

        #expect(detail.clashingFields == ["pages", "title"])
        #expect(detail.fields.map(\.name) == ["author_name", "finished", "pages", "title"])
        #expect(detail.fields.map(\.outcome) == [.server, .local, .clash, .clash])
        let title = try #require(detail.fields.last)
        #expect([title.base, title.local, title.server] == [.string("Dispossessed"), .string("The Dispossessed"), .string("Dispossessed: A Utopia")])
        #expect(detail.summary.label == "The Dispossessed")
        #expect(detail.summary.kind == .fields)
        #expect(!detail.deletedHere && !detail.deletedOnServer)
        #expect(detail.knownFields == ["author_name", "finished", "pages", "title"])
    }

    @Test func aDeletionClashIsShownWholeAndRefusesPerFieldChoices() throws {
        let store = try conflicted(local: nil)
        let resolver = ConflictResolver(store: store)
        let detail = try resolver.detail(.books, id: "b-1")
        #expect(detail.deletedHere)
        #expect(detail.summary.kind == .deleteVersusEdit)
        #expect(detail.clashingFields.isEmpty)
        #expect(detail.fields.map(\.name) == ["author_name", "pages", "title"])

        #expect(throws: FieldDecisionError.wholeRecordClash(kind: .deleteVersusEdit)) {
            try resolver.resolve(.books, id: "b-1", ConflictDecisions(fields: ["title": .keep(.local)]))
        }
        let resolution = try resolver.resolve(.books, id: "b-1", ConflictDecisions(others: .remote))
        #expect(resolution.fields.isEmpty && resolution.wholeRecord == .remote)
        #expect(try fields(store)["title"] == .string("Dispossessed: A Utopia"))
        #expect(try store.read { try $0.conflictCount() } == 0)
    }

    // MARK: Resolving

    @Test func eachClashingFieldTakesItsChosenSideAndTheRestKeepTheirMerge() throws {
        let store = try conflicted()
        let resolution = try ConflictResolver(store: store).resolve(
            .books, id: "b-1", ConflictDecisions(fields: ["title": .keep(.local), "pages": .keep(.remote)]))

        #expect(resolution.fields == ["title": .local, "pages": .remote])
        #expect(resolution.queued)
        let merged = try fields(store)
        #expect(merged["title"] == .string("The Dispossessed"))
        #expect(merged["pages"] == .number(310))
        #expect(merged["author_name"] == .string("Ursula K. Le Guin"), "the server's change of another field stays")
        #expect(merged["finished"] == .bool(true), "the local change of another field stays")
        let entry = try #require(try store.read { try $0.outboxEntry(.books, id: "b-1") })
        #expect(entry.kind == .update)
        #expect(entry.baseLastModified == 2000, "pushed with If-Match of the server's version")
        #expect(try store.read { try $0.conflictCount() } == 0)
    }

    @Test func writtenValuesAreReadByTheFieldsKind() throws {
        let store = try conflicted()
        try ConflictResolver(store: store).resolve(
            .books, id: "b-1", ConflictDecisions(fields: ["title": .written("1984"), "pages": .written("305")]))
        let merged = try fields(store)
        #expect(merged["title"] == .string("1984"), "a text field takes the text, even when it looks like a number")
        #expect(merged["pages"] == .number(305))

        #expect(try FieldValueText.value(#""null""#, field: "t", kind: .text) == .string("null"))
        #expect(try FieldValueText.value(#"" spaced ""#, field: "t", kind: .text) == .string(" spaced "))
        #expect(try FieldValueText.value("null", field: "t", kind: .text) == .null)
        #expect(try FieldValueText.value("true", field: "f", kind: .bool) == .bool(true))
        #expect(try FieldValueText.value("[1,2]", field: "j", kind: .json) == .array([.number(1), .number(2)]))
        #expect(throws: FieldDecisionError.badValue(field: "f", text: "maybe", expected: "true or false")) {
            try FieldValueText.value("maybe", field: "f", kind: .bool)
        }
        #expect(throws: FieldDecisionError.badValue(field: "p", text: "many", expected: "a number")) {
            try FieldValueText.value("many", field: "p", kind: .number)
        }
        #expect(FieldValueText.kind(of: [.string("a"), nil, .null]) == .text)
        #expect(FieldValueText.kind(of: [.number(1), .null]) == .number)
        #expect(FieldValueText.kind(of: [.bool(true)]) == .bool)
    }

    @Test func keepNamesTheSideOfEveryFieldNotChosenOtherwise() throws {
        let store = try conflicted()
        let resolution = try ConflictResolver(store: store).resolve(
            .books, id: "b-1", ConflictDecisions(others: .remote, fields: ["title": .written("Mine")]))
        #expect(resolution.fields == ["title": .written, "pages": .remote])
        #expect(try fields(store)["title"] == .string("Mine"))
        #expect(try fields(store)["pages"] == .number(310))
    }

    @Test(arguments: [
        (ConflictDecisions(fields: ["colour": .keep(.local)]), FieldDecisionError.unknownField("colour", known: ["author_name", "finished", "pages", "title"])),
        (ConflictDecisions(others: .local, fields: ["finished": .keep(.local)]), .notInConflict("finished", clashing: ["pages", "title"])),
        (ConflictDecisions(fields: ["title": .keep(.local)]), .undecided(["pages"])),
        (ConflictDecisions(fields: ["title": .keep(.local), "pages": .written("lots")]), .badValue(field: "pages", text: "lots", expected: "a number")),
    ])
    func decisionsThatDoNotFitAreRefusedAndChangeNothing(decisions: ConflictDecisions, error: FieldDecisionError) throws {
        let store = try conflicted()
        #expect(throws: error) { try ConflictResolver(store: store).resolve(.books, id: "b-1", decisions) }
        #expect(try store.read { try $0.conflictCount() } == 1)
        #expect(try fields(store)["title"] == .string("The Dispossessed"))
    }

    @Test func fieldsMayBeNamedAsTheDomainNamesThem() throws {
        let store = try conflicted()
        let resolution = try ConflictResolver(store: store).resolve(
            .books, id: "b-1", ConflictDecisions(others: .remote, fields: ["title": .keep(.local)]))
        #expect(resolution.fields == ["title": .local, "pages": .remote])

        let other = try conflicted()
        #expect(throws: FieldDecisionError.notInConflict("author_name", clashing: ["pages", "title"])) {
            try ConflictResolver(store: other).resolve(.books, id: "b-1", ConflictDecisions(others: .local, fields: ["author": .keep(.local)]))
        }
        #expect(throws: FieldDecisionError.givenTwice("author_name")) {
            try ConflictResolver(store: other).resolve(
                .books, id: "b-1", ConflictDecisions(others: .local, fields: ["author": .keep(.local), "author_name": .keep(.remote)]))
        }
    }

    @Test func aResultTheRulesRefuseIsNotWritten() throws {
        let store = try conflicted()
        #expect(throws: FieldDecisionError.self) {
            try ConflictResolver(store: store).resolve(.books, id: "b-1", ConflictDecisions(others: .local, fields: ["title": .written("  ")]))
        }
        #expect(try store.read { try $0.conflictCount() } == 1)
    }

    @Test func aConflictIsFoundByItsIDOrAUniquePrefixUnlessSeveralMatch() throws {
        let store = try conflicted()
        let resolver = ConflictResolver(store: store)
        #expect(try resolver.locate("b-1", in: nil) == (.books, "b-1"))
        #expect(throws: ResolutionError.noConflictWithID("b-2")) { try resolver.locate("b-2", in: nil) }
        #expect(throws: ResolutionError.noConflict(collection: .notes, id: "b-1")) { try resolver.locate("b-1", in: .notes) }
        try store.write { tx in
            for (collection, id) in [(CollectionName.notes, "b-1"), (.notes, "note-1234-a"), (.notes, "note-1234-b")] {
                try tx.recordConflict(Conflict(
                    collection: collection, recordID: id, base: nil, local: Data(#"{"id":"\#(id)","title":"x","body":""}"#.utf8),
                    remote: Data(#"{"id":"\#(id)","title":"y","body":""}"#.utf8), remoteLastModified: 5, detectedAt: Self.detected))
            }
        }
        #expect(throws: ResolutionError.ambiguous(reference: "b-1", candidates: ["books/b-1", "notes/b-1"])) {
            try resolver.locate("b-1", in: nil)
        }
        #expect(try resolver.locate("b-1", in: .notes) == (.notes, "b-1"))
        #expect(try resolver.locate("note-1234-a", in: nil) == (.notes, "note-1234-a"))
        #expect(try resolver.locate("note-1234-b", in: nil) == (.notes, "note-1234-b"))
        #expect(throws: ResolutionError.noConflict(collection: .books, id: "note-1234")) { try resolver.locate("note-1234", in: .books) }
        #expect(throws: ResolutionError.ambiguous(reference: "note", candidates: ["notes/note-1234-a", "notes/note-1234-b"])) {
            try resolver.locate("note", in: nil)
        }
        #expect(throws: ResolutionError.tooShort("no")) { try resolver.locate("no", in: nil) }
    }

    // MARK: The editor's form

    @Test func theFormHoldsOneLinePerClashingFieldWithTheThreeValuesAsComments() throws {
        let form = ConflictEditForm(try ConflictResolver(store: try conflicted()).detail(.books, id: "b-1"))
        let lines = form.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("pages: 320"))
        #expect(lines.contains(#"title: "The Dispossessed""#))
        #expect(lines.contains(#"#   server: "Dispossessed: A Utopia""#))
        #expect(lines.contains("# Changed on one side only, kept as merged: author_name (server), finished (local)."))
        #expect(lines.filter { !$0.hasPrefix("#") }.count == 2)
    }

    @Test func anEditedFormGivesItsValuesAndAnUnusableOneIsRefusedNamingTheLine() throws {
        let form = ConflictEditForm(try ConflictResolver(store: try conflicted()).detail(.books, id: "b-1"))
        let edited = form.text
            .replacingOccurrences(of: #"title: "The Dispossessed""#, with: "title:   The Dispossessed, again  ")
            .replacingOccurrences(of: "pages: 320", with: "pages: 315")
        #expect(try form.decisions(from: edited) == ConflictDecisions(fields: [
            "title": .written("The Dispossessed, again"), "pages": .written("315"),
        ]))

        #expect(throws: ConflictEditFormError.unchanged) { try form.decisions(from: form.text) }
        #expect(throws: ConflictEditFormError.unchanged) { try form.decisions(from: "# nothing\n\n") }
        let valuesAsTheyWere = form.text.replacingOccurrences(of: "\n", with: "\r\n").replacingOccurrences(of: "#   base:", with: "# base was:")
        #expect(throws: ConflictEditFormError.unchanged) { try form.decisions(from: valuesAsTheyWere) }
        let lineOfPages = try #require(form.text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex(of: "pages: 320")) + 1
        #expect(throws: ConflictEditFormError.malformedLine(lineOfPages, "pages 315")) {
            try form.decisions(from: form.text.replacingOccurrences(of: "pages: 320", with: "pages 315"))
        }
        #expect(throws: ConflictEditFormError.notAClashingField(lineOfPages, "finished", clashing: ["pages", "title"])) {
            try form.decisions(from: form.text.replacingOccurrences(of: "pages: 320", with: "finished: true"))
        }
        #expect(throws: ConflictEditFormError.missingFields(["pages"])) {
            try form.decisions(from: form.text.replacingOccurrences(of: "pages: 320", with: ""))
        }
        #expect(throws: ConflictEditFormError.repeatedField(lineOfPages + 1, "pages")) {
            try form.decisions(from: form.text.replacingOccurrences(of: "pages: 320", with: "pages: 1\npages: 2"))
        }
    }
}
