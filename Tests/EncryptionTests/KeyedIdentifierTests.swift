import Domain
import Encryption
import Testing

@Suite("Keyed record ids")
struct KeyedIdentifierTests {
    @Test func theSameNaturalIDGivesTheSameIDUnderOneKey() throws {
        let key = try DataKey.generate()
        let first = try KeyedIdentifier(key: key).id(for: "gr-12345", in: "books")
        let again = try KeyedIdentifier(key: key).id(for: "gr-12345", in: "books")
        #expect(first == again)
    }

    @Test func idsDifferPerKeyPerNaturalIDAndPerCollection() throws {
        let one = try KeyedIdentifier(key: DataKey.generate())
        let other = try KeyedIdentifier(key: DataKey.generate())
        let ids: Set = [
            one.id(for: "gr-12345", in: "books"),
            other.id(for: "gr-12345", in: "books"),
            one.id(for: "gr-12346", in: "books"),
            one.id(for: "gr-12345", in: "notes"),
        ]
        #expect(ids.count == 4)
    }

    @Test func idsAreKintoIDsThatRevealNothing() throws {
        let identifiers = try KeyedIdentifier(key: DataKey.generate())
        for natural in ["gr-1", "gr-999999999", "isbn-9780060512750", ""] {
            let id = identifiers.id(for: natural, in: "books")
            #expect(try RecordID.validate(id) == id)
            #expect(id.utf8.count == 32)
            #expect(id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            #expect(natural.isEmpty || !id.contains(natural))
        }
    }

    @Test func theKeyedIDIsNotTheKeysID() throws {
        let key = try DataKey.generate()
        let id = try KeyedIdentifier(key: key).id(for: "gr-1", in: "books")
        #expect(!id.contains(key.id.rawValue))
    }
}
