import Domain
import Foundation
import Testing
@testable import Storage

@Suite("Sharing a store")
struct ConcurrencyTests {
    @Test func manyTasksEditThroughOneStore() async throws {
        let store = try ShelfStore.inMemory()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<50 {
                        let id = "t-\(worker)-\(index)"
                        try store.write { tx in try tx.saveLocal(.tasks, id: id, json: Wire.task(id, title: "Task \(index)")) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.read { try $0.count(RecordQuery(.tasks)) } == 400)
        #expect(try store.read { try $0.pendingCount() } == 400)
        let sequences = try store.outbox().map(\.sequence)
        #expect(Set(sequences).count == 400)
    }

    @Test func twoConnectionsToOneFileWaitForEachOther() async throws {
        // Like the CLI and the cron worker: two stores on one file, writing at once.
        let folder = try TemporaryDirectory()
        let path = folder.file("shared.sqlite")
        let first = try ShelfStore(location: .file(path))
        let second = try ShelfStore(location: .file(path))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, store) in [("a", first), ("b", second)] {
                group.addTask {
                    for index in 0..<100 {
                        let id = "\(name)-\(index)"
                        try store.write { tx in try tx.saveLocal(.notes, id: id, json: Wire.note(id, title: "Note \(index)")) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try first.read { try $0.count(RecordQuery(.notes)) } == 200)
        #expect(try second.read { try $0.pendingCount() } == 200)
    }
}
