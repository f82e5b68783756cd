import Domain
import Foundation
import Records
import Testing
import TestSupport
@testable import Storage

/// The versions the integrity rules compare a pulled page with, read for a whole page in
/// one statement (and one for the remembered deletions).
@Suite("Held versions: a page's look-up in one statement")
struct HeldVersionsTests {
    /// A sealed record as a device holds it once opened: its number and lineage inside.
    private static func opened(_ id: String, seq: Int, revision: String, lastModified: Int64) -> RawRecord {
        let json = #"{"id":"\#(id)","title":"T \#(id)","last_modified":\#(lastModified),"_shelf_seq":\#(seq),"_shelf_revs":["r0","\#(revision)"]}"#
        return RawRecord(id: id, lastModified: lastModified, json: Data(json.utf8))
    }

    private func store() throws -> ShelfStore {
        let store = try ShelfStore.testStore()
        try store.seed([Self.opened("b1", seq: 3, revision: "r3", lastModified: 1000),
                        Self.opened("b2", seq: 1, revision: "r1", lastModified: 1001),
                        Wire.remoteBook("plain", title: "In the clear", lastModified: 1002)], to: .books)
        _ = try store.write { tx in
            try tx.deleteLocal(.books, id: "b2")
            try tx.rememberSealedDeletion(.books, id: "gone", SealedDeletion(sequence: 5, revision: "r5", lastModified: 999))
            try tx.rememberSealedDeletion(.books, id: "b1", SealedDeletion(sequence: 2, revision: "r2", lastModified: 998))
        }
        return store
    }

    @Test func aPageReadsWhatTheLookupsOneByOneRead() throws {
        let store = try store()
        let held = try store.read { try $0.heldVersions(.books, ids: ["b1", "b2", "plain", "gone", "never", "b1", #"quo"te"#]) }

        #expect(Set(held.keys) == ["b1", "b2", "plain", "gone"])
        #expect(held["b1"]?.sequence == 3)
        #expect(held["b1"]?.revision == "r3")
        #expect(held["b1"]?.hasRow == true)
        #expect(held["b1"]?.removal?.sequence == 2)
        #expect(held["b2"]?.waiting == true, "its deletion waits to be pushed")
        #expect(held["b2"]?.sequence == 1, "read from the base the deletion is made against")
        #expect(held["plain"]?.sequence == nil)
        #expect(held["plain"]?.hasRow == true)
        #expect(held["gone"]?.hasRow == false)
        #expect(held["gone"]?.removal == SealedDeletion(sequence: 5, revision: "r5", lastModified: 999))
        #expect(try store.read { try $0.heldVersions(.books, ids: []) }.isEmpty)
    }

    /// With the id index each id is an index look-up: never a scan of the collection.
    @Test func eachIDIsAnIndexLookup() throws {
        let store = try store()

        let plan = try store.read { try $0.heldVersionsPlan() }

        #expect(plan.contains("SEARCH r USING INDEX \(IdentityIndex.name) (collection=? AND id=?)"), "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN r") || $0.hasPrefix("SCAN b") || $0.hasPrefix("SCAN o") }, "\(plan)")
    }

    /// During a first pull's bulk load (the id index out) the held versions are those of
    /// the rows the load inserted, found without a scan; an id it never inserted is held
    /// nowhere. Once another writer builds the index, every id is looked up again.
    @Test func duringABulkLoadOnlyTheLoadsOwnRowsAreHeld() throws {
        let store = try ShelfStore.testStore()
        let bulk = BulkLoad()
        let first = (0..<1500).map { Self.opened("s\($0)", seq: 2, revision: "r\($0)", lastModified: Int64(1000 + $0)) }
        try store.write(bulkLoad: bulk) { tx in try tx.storePulled(first, in: .books, morePagesFollow: true) }
        #expect(bulk.isLoading)
        #expect(try !IdentityIndexProbe.isPresent(store))

        let held = try store.write(bulkLoad: bulk) { tx in try tx.heldVersions(.books, ids: ["s7", "s1499", "later"]) }
        #expect(Set(held.keys) == ["s7", "s1499"])
        #expect(held["s7"]?.sequence == 2)
        #expect(held["s1499"]?.revision == "r1499")

        // WHEN another writer builds the index and writes a book the load did not insert
        _ = try store.write { tx in try tx.saveLocal(.books, id: "later", json: Data(#"{"id":"later","title":"Mine"}"#.utf8)) }

        // THEN the next page's look-up finds it
        let after = try store.write(bulkLoad: bulk) { tx in try tx.heldVersions(.books, ids: ["s7", "later"]) }
        #expect(Set(after.keys) == ["s7", "later"])
        #expect(after["later"]?.waiting == true)
    }
}
