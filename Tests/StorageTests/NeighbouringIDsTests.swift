import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

@Suite("Neighbouring ids: many in one statement")
struct NeighbouringIDsTests {
    /// Ids that share long prefixes, differ in their last byte, or are prefixes of each other.
    static let stored = [
        "abc", "abcd", "abcd-0", "abcd-00", "abcd-01", "abcd-1", "abce", "abcd0", "b", "b-", "b--", "zzzz-9999",
        "3f2b1c9a-0000", "3f2b1c9a-0001", "3f2b1c9b-0000",
    ]

    private func store() throws -> ShelfStore {
        let store = try ShelfStore.testStore()
        try store.seed(
            Self.stored.enumerated().map { offset, id in Wire.remoteBook(id, title: "Book \(offset)", lastModified: Int64(1000 + offset)) },
            to: .books)
        // A deletion waiting to be pushed still counts, as in the lookups one id at a time.
        _ = try store.write { transaction in try transaction.deleteLocal(.books, id: "abcd-00") }
        return store
    }

    @Test func manyIDsInOneStatementHaveTheNeighboursOfTheLookupsOneByOne() throws {
        let store = try store()
        // Stored ids, ids between them, before the first and after the last, a repeat, and
        // texts JSON must escape.
        let asked = Self.stored + ["abcd-", "abcd-000", "a", "0", "zzzzz", "abc", #"quote"d"#, #"back\slash"#, "café", ""]

        let (together, oneByOne) = try store.read { reader in
            (try reader.neighbouringIDs(of: asked, in: .books),
             try asked.map { id in (id, try reader.neighbouringIDs(of: id, in: .books)) })
        }

        #expect(together.count == asked.count)
        let byID = Dictionary(together.map { ($0.id, ($0.before, $0.after)) }) { first, _ in first }
        for (id, expected) in oneByOne {
            let found = try #require(byID[id], "no neighbours for \(id)")
            #expect(found.0 == expected.before && found.1 == expected.after, "\(id): \(found) != \(expected)")
        }
        #expect(byID["abcd-0"].map { $0 == ("abcd", "abcd-00") } == true)
        #expect(byID["abcd-01"].map { $0 == ("abcd-00", "abcd-1") } == true)
    }

    @Test func anotherCollectionsIDsAreNotNeighbours() throws {
        let store = try store()
        let found = try store.read { reader in try reader.neighbouringIDs(of: ["abcd"], in: .notes) }
        #expect(found.count == 1)
        #expect(found.first?.before == nil && found.first?.after == nil)
        #expect(try store.read { reader in try reader.neighbouringIDs(of: [], in: .books) }.isEmpty)
    }

    @Test func idsAreBoundAsAJSONArrayThatReadsBackTheSame() throws {
        let ids = ["plain-1", #"quote"d"#, #"back\slash"#, "tab\there", "nul\u{0}", "\u{1F}\u{7F}", "café 📚", ""]
        let text = StoreReader.jsonArray(ids)
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String] == ids)
        #expect(StoreReader.jsonArray([]) == "[]")
    }

    /// Each id costs two lookups in the `(collection, id)` index: never a scan of the collection.
    @Test func eachIDIsTwoIndexLookups() throws {
        let store = try store()

        let plan = try store.read { try $0.neighboursPlan() }

        let onRecords = plan.filter { $0.contains("records") }
        #expect(onRecords.count == 2, "\(plan)")
        for step in onRecords {
            #expect(step.hasPrefix("SEARCH records USING COVERING INDEX \(IdentityIndex.name) (collection=? AND id"), "\(plan)")
        }
        #expect(!plan.contains { $0.contains("SCAN records") || $0.contains("TEMP B-TREE") }, "\(plan)")
    }
}
