import Domain
import Foundation
import Repositories
import Storage
import Testing
import TestSupport

/// What a reader may type for an id (`RecordLookupRepository`): the full id, a unique
/// prefix of four characters or more, or a title (books, notes, tasks), a name
/// (products), a product's name (cart lines) — against a real store.
@Suite("Record lookup: short ids and titles")
struct RecordLookupTests {
    let store: ShelfStore
    let lookup: RecordLookupRepository

    init() throws {
        store = try ShelfStore.inMemory()
        try store.pull([
            try Wire.book("3f2b1c9a-0000", title: "The Dispossessed", author: "Ursula K. Le Guin"),
            try Wire.book("3f2b1c9f-0000", title: "Dune", author: "Frank Herbert"),
            try Wire.book("3f2b", title: "Dune Messiah", author: "Frank Herbert"),
            try Wire.book("7a00aaaa-0000", title: "Cien años de soledad", author: "Gabriel García Márquez"),
            try Wire.book("7a00aaab-0000", title: "Cien años de soledad", author: "Gabriel García Márquez"),
            try Wire.book("8b00aaaa-0000", title: "L'Étranger", author: "Albert Camus"),
        ], into: .books)
        try store.pull([try Wire.note("9c0ffee1", title: "Walls"), try Wire.note("9c0ffee2", title: "Spice")], into: .notes)
        lookup = RecordLookupRepository(store: store)
    }

    // MARK: Ids

    @Test func aUniquePrefixNamesItsRecord() async throws {
        #expect(try await lookup.resolve("3f2b1c9a", in: .books) == "3f2b1c9a-0000")
        #expect(try await lookup.resolve("8b00", in: .books) == "8b00aaaa-0000")
        #expect(try await lookup.resolve("9c0ffee2", in: .notes) == "9c0ffee2")
    }

    @Test func anExactIDWinsOverTheLongerIDsItPrefixes() async throws {
        #expect(try await lookup.resolve("3f2b", in: .books) == "3f2b")
    }

    @Test func anAmbiguousPrefixListsItsCandidates() async throws {
        do {
            _ = try await lookup.resolve("3f2b1c9", in: .books)
            Issue.record("an ambiguous prefix was accepted")
        } catch let error as RecordLookupError {
            #expect(error == .ambiguous(.books, reference: "3f2b1c9", candidates: [
                RecordCandidate(id: "3f2b1c9a-0000", title: "The Dispossessed — Ursula K. Le Guin"),
                RecordCandidate(id: "3f2b1c9f-0000", title: "Dune — Frank Herbert"),
            ], total: 2))
            #expect(error.summary == "'3f2b1c9' could be any of 2 books; give more of the id")
            #expect(error.candidateLines == ["3f2b1c9a-0000  The Dispossessed — Ursula K. Le Guin", "3f2b1c9f-0000  Dune — Frank Herbert"])
        }
    }

    @Test func theCandidatesAreBoundedAndCounted() async throws {
        try store.pull((0..<25).map { try Wire.note("abcd-\($0)", title: "Note \($0)") }, into: .notes)
        await #expect(throws: RecordLookupError.self) { try await lookup.resolve("abcd", in: .notes) }
        do {
            _ = try await lookup.resolve("abcd", in: .notes)
        } catch let RecordLookupError.ambiguous(_, _, candidates, total) {
            #expect(candidates.count == RecordLookupError.candidateLimit)
            #expect(total == 25)
        }
    }

    @Test func aPrefixShorterThanFourIsRefusedSayingSo() async throws {
        await #expect(throws: RecordLookupError.tooShort(.notes, reference: "9c0")) {
            try await lookup.resolve("9c0", in: .notes)
        }
        let error = RecordLookupError.tooShort(.books, reference: "3f")
        #expect(error.description == "'3f' is too short to name a book: give its full id or at least 4 characters of it, or its title")
    }

    @Test func nothingMatchingIsNotFound() async throws {
        await #expect(throws: RecordLookupError.notFound(.notes, reference: "ffff")) {
            try await lookup.resolve("ffff", in: .notes)
        }
        await #expect(throws: RecordLookupError.notFound(.notes, reference: "has space"), "not an id, and no title holds it") {
            try await lookup.resolve("has space", in: .notes)
        }
        await #expect(throws: DomainError.invalidIdentifier("has space")) {
            try await lookup.resolve("has space", in: .sessions)
        }
    }

    @Test func aRecordWaitingForItsDeletionIsNotFound() async throws {
        let notes = NoteRepository(store: store, refresher: FakeCollectionRefresher())
        try await notes.deleteNote(id: "9c0ffee1")
        #expect(try await lookup.resolve("9c0f", in: .notes) == "9c0ffee2")
    }

    // MARK: Titles

    @Test func aBookIsNamedByItsTitleAnyCaseAnyAccents() async throws {
        #expect(try await lookup.resolve("dispossessed", in: .books) == "3f2b1c9a-0000")
        #expect(try await lookup.resolve("L'ETRANGER", in: .books) == "8b00aaaa-0000")
        // NB: "Dune" is also in "Dune Messiah": the title equal to the text wins.
        #expect(try await lookup.resolve("dune", in: .books) == "3f2b1c9f-0000")
        #expect(try await lookup.resolve("messiah", in: .books) == "3f2b")
    }

    @Test func anAmbiguousTitleListsItsCandidates() async throws {
        do {
            _ = try await lookup.resolve("cien anos", in: .books)
            Issue.record("an ambiguous title was accepted")
        } catch let RecordLookupError.ambiguous(collection, reference, candidates, total) {
            #expect(collection == .books && reference == "cien anos" && total == 2)
            #expect(candidates.map(\.id) == ["7a00aaaa-0000", "7a00aaab-0000"])
        }
        await #expect(throws: RecordLookupError.notFound(.books, reference: "Frank Herbert")) {
            try await lookup.resolve("Frank Herbert", in: .books)
        }
    }

    @Test func notesTasksProductsAndCartLinesAreNamedByTitleOrNameToo() async throws {
        try store.pull([try Wire.task("t-1", title: "Read chapter 1"), try Wire.task("t-2", title: "Read chapter 2")], into: .tasks)
        try store.pull([
            try Wire.product("p-1", name: "Brass bookmark", priceMinor: 500), try Wire.product("p-2", name: "Reading lamp", priceMinor: 2500),
        ], into: .products)
        try store.pull([try Wire.cartLine("p-1", quantity: 2)], into: .cart)

        #expect(try await lookup.resolve("walls", in: .notes) == "9c0ffee1")
        #expect(try await lookup.resolve("Read chapter 2", in: .tasks) == "t-2", "a title equal to the text")
        #expect(try await lookup.resolve("chapter 1", in: .tasks) == "t-1", "else the one title containing it")
        #expect(try await lookup.resolve("brass", in: .products) == "p-1")
        #expect(try await lookup.resolve("Brass bookmark", in: .cart) == "p-1", "a cart line by its product's name")
        await #expect(throws: RecordLookupError.notFound(.cart, reference: "lamp")) {
            try await lookup.resolve("lamp", in: .cart)
        }
        await #expect(throws: RecordLookupError.self) { try await lookup.resolve("Read chapter", in: .tasks) }
        #expect(RecordLookupError.notFound(.cart, reference: "lamp").summary == "no cart line with id or product name 'lamp'")
    }

    // MARK: Short ids

    @Test func listsShowTheShortestUniquePrefixOfEightOrMore() async throws {
        try store.pull([try Wire.book("3f2b1c9a-1111", title: "Twin")], into: .books)
        let ids = ["3f2b1c9a-0000", "3f2b1c9a-1111", "3f2b1c9f-0000", "3f2b", "8b00aaaa-0000", "gone-0000000000"]

        let shown = try await lookup.shortIDs(ids, in: .books)

        // NB: never cut inside a number (`ShortID`): "3f2b1c9a-0" would end inside 0000.
        #expect(shown == [
            "3f2b1c9a-0000": "3f2b1c9a-0000", "3f2b1c9a-1111": "3f2b1c9a-1111", "3f2b1c9f-0000": "3f2b1c9f",
            "3f2b": "3f2b", "8b00aaaa-0000": "8b00aaaa", "gone-0000000000": "gone-0000000000",
        ])
        // Every prefix shown resolves back to its id.
        for (id, prefix) in shown where id != "gone-0000000000" {
            #expect(try await lookup.resolve(prefix, in: .books) == id)
        }
    }

    @Test func manyIDsAreShortenedInOnePassWithTheSameResult() async throws {
        let many = (0..<(RecordLookupRepository.bulkThreshold + 10)).map { String(format: "%08x-aaaa", $0 * 7919) }
        try store.pull(try many.map { try Wire.book($0, title: "B \($0)") }, into: .books)

        let inOnePass = try await lookup.shortIDs(many, in: .books)
        var oneByOne: [String: String] = [:]
        for chunk in stride(from: 0, to: many.count, by: 1_000) {
            let part = Array(many[chunk..<min(chunk + 1_000, many.count)])
            oneByOne.merge(try await lookup.shortIDs(part, in: .books)) { _, new in new }
        }

        #expect(inOnePass == oneByOne)
        #expect(Set(inOnePass.values).count == many.count)
    }

    @Test func titlesAreWhatListsShowNextToIDs() async throws {
        #expect(try await lookup.titles(["3f2b1c9a-0000", "gone"], in: .books) == ["3f2b1c9a-0000": "The Dispossessed"])
    }
}

/// The same rules over ids already in memory (conflicts).
@Suite("Record lookup: ids in memory")
struct RecordReferenceMatchTests {
    let candidates = [RecordCandidate(id: "3f2b1c9a-0000", title: "A"), RecordCandidate(id: "3f2b1c9f-0000", title: "B"),
                      RecordCandidate(id: "3f2b", title: "C")]

    @Test func theRulesAreTheStoresRules() throws {
        #expect(try RecordReferenceMatch.resolve("3f2b", among: candidates, in: .books) == "3f2b")
        #expect(try RecordReferenceMatch.resolve("3f2b1c9a", among: candidates, in: .books) == "3f2b1c9a-0000")
        #expect(throws: RecordLookupError.tooShort(.books, reference: "3f2")) {
            try RecordReferenceMatch.resolve("3f2", among: candidates, in: .books)
        }
        #expect(throws: RecordLookupError.notFound(.books, reference: "ffff")) {
            try RecordReferenceMatch.resolve("ffff", among: candidates, in: .books)
        }
        #expect(throws: RecordLookupError.ambiguous(.books, reference: "3f2b1", candidates: Array(candidates.prefix(2)), total: 2)) {
            try RecordReferenceMatch.resolve("3f2b1", among: candidates, in: .books)
        }
    }

    @Test func theShortestUniquePrefixDependsOnTheNeighbours() {
        #expect(ShortID.shortestUniquePrefix(of: "3f2b1c9a-0000", before: nil, after: nil) == "3f2b1c9a")
        #expect(ShortID.shortestUniquePrefix(of: "3f2b1c9a-0000", before: "3f2b1c9a-0", after: "3f2b1c9a-1111") == "3f2b1c9a-0000",
                "a cut between two digits moves on to the end of the number")
        #expect(ShortID.shortestUniquePrefix(of: "3f2b1c9a-00ab", before: "3f2b1c9a-0", after: "3f2b1c9a-1111") == "3f2b1c9a-00")
        #expect(ShortID.shortestUniquePrefix(of: "b-42", before: "b-41", after: nil) == "b-42")
    }
}
