import Domain
import Testing

@Suite("Duplicate identities")
struct UniqueIdentitiesTests {
    @Test func uniqueListPasses() throws {
        let notes = [try Note(id: "a", title: "A"), try Note(id: "b", title: "B")]
        #expect(try notes.requireUniqueIDs() == notes)
        #expect(notes.duplicateIDs().isEmpty)
    }

    @Test func duplicatesAreReportedOnceEachInOrder() throws {
        let notes = try ["a", "b", "a", "c", "b", "a"].map { try Note(id: $0, title: "T") }
        #expect(notes.duplicateIDs() == ["a", "b"])
        #expect(throws: DomainError.duplicateIdentities(["a", "b"])) { try notes.requireUniqueIDs() }
    }
}

@Suite("Search folding")
struct SearchFoldingTests {
    @Test func caseAndDiacriticsAreIgnored() {
        #expect(SearchFolding.matches("cafe", in: "Café au lait"))
        #expect(SearchFolding.matches("LE GUIN", in: "x", "Ursula K. Le Guin"))
        #expect(SearchFolding.matches("garcia marquez", in: "Gabriel García Márquez"))
        #expect(!SearchFolding.matches("tea", in: "Café"))
        #expect(SearchFolding.matches("  ", in: "anything"))
    }
}

@Suite("Collections")
struct CollectionNameTests {
    @Test func onlyTheCatalogIsReadOnly() {
        #expect(CollectionName.products.isReadOnly)
        #expect(CollectionName.writable.allSatisfy { !$0.isReadOnly })
        #expect(Set(CollectionName.writable + [.products]) == Set(CollectionName.allCases))
    }
}
