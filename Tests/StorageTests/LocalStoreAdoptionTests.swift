import Domain
import Foundation
import Storage
import Testing
import TestSupport

@Suite("Adopting the local-only store")
struct LocalStoreAdoptionTests {
    let paths: ShelfPaths

    init() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-adopt-\(UUID().uuidString)")
        paths = ShelfPaths(environment: ["HOME": root.path, "XDG_DATA_HOME": root.appendingPathComponent("data").path])
    }

    private func localStore() throws -> ShelfStore {
        try ShelfStore(location: paths.database(.localOnly))
    }

    private func exists(_ location: StoreLocation) -> Bool {
        guard case .file(let url) = location else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }

    @Test func offlineWorkMovesToTheFirstAccountWithItsQueue() throws {
        do {
            let local = try localStore()
            _ = try local.write { tx in
                try tx.saveLocal(.books, id: "b1", json: Data(#"{"id":"b1","title":"Dune","author_name":"Frank Herbert","finished":false}"#.utf8))
                try tx.saveLocal(.tasks, id: "t1", json: Data(#"{"id":"t1","title":"Read","done":false}"#.utf8))
            }
        }
        let account = try AccountName("work")
        let adopted = try LocalStoreAdoption.adopt(into: account, paths: paths)
        #expect(adopted == LocalStoreAdoption.Adopted(records: 2, pendingChanges: 2))
        #expect(!exists(paths.database(.localOnly)))

        let moved = try ShelfStore(location: paths.database(account))
        #expect(try moved.pendingCount() == 2)
        #expect(try moved.record(.books, id: "b1") != nil)
        guard case .file(let url) = paths.database(account) else {
            Issue.record("the account's store is not a file: \(paths.database(account))")
            return
        }
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test func anAccountWithAStoreIsNeverOverwritten() throws {
        let account = try AccountName("work")
        _ = try ShelfStore(location: paths.database(account))
        _ = try localStore().write { tx in
            try tx.saveLocal(.tasks, id: "t1", json: Data(#"{"id":"t1","title":"Read","done":false}"#.utf8))
        }
        #expect(try LocalStoreAdoption.adopt(into: account, paths: paths) == nil)
        #expect(try localStore().pendingCount() == 1)  // still there, untouched
    }

    @Test func nothingToCarryLeavesEverythingAsItWas() throws {
        #expect(try LocalStoreAdoption.adopt(into: try AccountName("a"), paths: paths) == nil)
        _ = try localStore()
        #expect(try LocalStoreAdoption.adopt(into: try AccountName("a"), paths: paths) == nil)
        #expect(exists(paths.database(.localOnly)))
        #expect(!exists(paths.database(try AccountName("a"))))
    }
}
