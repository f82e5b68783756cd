import Foundation
import Sync
import Testing

@Suite("Run lock")
struct RunLockTests {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("shelf-lock-\(UUID().uuidString)/account.lock")

    @Test func aSecondRunnerIsTurnedAwayUntilTheFirstReleases() throws {
        let first = try #require(try RunLock.acquire(at: url))
        #expect(try RunLock.acquire(at: url) == nil)
        #expect(RunLock.holder(of: url) == getpid())
        first.release()
        let second = try #require(try RunLock.acquire(at: url))
        second.release()
    }

    @Test func theLockFollowsTheObjectsLifetime() throws {
        do {
            let held = try RunLock.acquire(at: url)
            #expect(held != nil)
        }
        #expect(try RunLock.acquire(at: url) != nil)
    }

    @Test func anUnopenableFileIsAnError() {
        #expect(throws: RunLockError.self) { try RunLock.acquire(at: URL(fileURLWithPath: "/proc/shelf/x.lock")) }
    }
}
