import Domain
import Foundation
import Storage
import Sync
import Testing

/// When a run checks its store first: after an unfinished run, without a mark, or
/// when the last pass is more than a day old — and never when the pass is fresh.
@Suite("Store health gate")
struct StoreHealthGateTests {
    let folder: URL
    let mark: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-gate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        mark = folder.appendingPathComponent("a.checked")
    }

    private func gate(at now: Date) -> StoreHealthGate {
        StoreHealthGate(mark: mark, clock: SyncClock(now: { now }, sleep: { _ in }))
    }

    @Test func aCheckIsDueWithoutAMarkAfterAnUnfinishedRunAndDaily() throws {
        let store = try ShelfStore(location: .file(folder.appendingPathComponent("a.sqlite")))
        let now = Date()
        #expect(gate(at: now).isDue(previousRunUnfinished: false))
        #expect(try gate(at: now).checkIfDue(store, previousRunUnfinished: false)?.isHealthy == true)
        #expect(FileManager.default.fileExists(atPath: mark.path))

        #expect(!gate(at: now.addingTimeInterval(3600)).isDue(previousRunUnfinished: false))
        #expect(try gate(at: now.addingTimeInterval(3600)).checkIfDue(store, previousRunUnfinished: false) == nil)
        #expect(gate(at: now.addingTimeInterval(3600)).isDue(previousRunUnfinished: true))
        #expect(gate(at: now.addingTimeInterval(StoreHealthGate.maximumAge + 60)).isDue(previousRunUnfinished: false))
        // A clock that moved back does not postpone the check forever.
        #expect(gate(at: now.addingTimeInterval(-3600)).isDue(previousRunUnfinished: false))
    }

    @Test func anUnfinishedRunIsSeenThroughTheLockFile() throws {
        let lockFile = folder.appendingPathComponent("a.lock")
        let first = try #require(try RunLock.acquire(at: lockFile))
        #expect(!first.previousRunUnfinished)
        first.release()
        let second = try #require(try RunLock.acquire(at: lockFile))
        #expect(!second.previousRunUnfinished)
        second.release()
        // A run killed while holding the lock leaves its pid behind.
        try Data("4242\n".utf8).write(to: lockFile)
        let third = try #require(try RunLock.acquire(at: lockFile))
        #expect(third.previousRunUnfinished)
        third.release()
        // Released without acknowledging (a refresh that did not check): passed on.
        let fourth = try #require(try RunLock.acquire(at: lockFile))
        #expect(fourth.previousRunUnfinished)
        fourth.acknowledgeUnfinishedRun()
        fourth.release()
        let fifth = try #require(try RunLock.acquire(at: lockFile))
        #expect(!fifth.previousRunUnfinished)
        fifth.release()
    }
}
