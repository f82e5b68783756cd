import Domain
import Foundation
import Storage
import Sync
import Synchronization
import Testing
import WorkerCommands

/// The worker's log lines: levels, the one-line idle run, timestamps, journald
/// priorities, JSON objects, escaping — and the severity that picks the exit status.
@Suite("Worker log and exit status")
struct WorkerLogTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    private func log(_ format: WorkerLog.Format = .text, _ threshold: LogLevel = .info, prefixes: Bool = false) -> (WorkerLog, Lines) {
        let captured = Lines()
        let clock = SyncClock(now: { Date(timeIntervalSince1970: 1_764_550_263.042) }, sleep: { _ in })
        return (WorkerLog(format: format, threshold: threshold, priorityPrefixes: prefixes, clock: clock) { line in
            captured.lines.withLock { $0.append(line) }
        }, captured)
    }

    private var idleRun: [SyncEvent] {
        let report = RunReport(account: "a", outcome: .synced, message: "synced", startedAt: Date(), durationMilliseconds: 12, requests: 1,
                               collections: ["books": CollectionReport(), "notes": CollectionReport()])
        return [.runStarted(collections: [.books, .notes]), .collectionStarted(.books), .notModified(.books),
                .collectionFinished(.books, CollectionReport()), .collectionStarted(.notes), .notModified(.notes),
                .collectionFinished(.notes, CollectionReport()), .runFinished(report)]
    }

    @Test func anIdleRunIsOneInfoLine() {
        let (log, captured) = log()
        for event in idleRun { log.log(event, account: "a") }
        #expect(captured.all == ["2025-12-01T00:51:03.042Z INFO [a] nothing to do (1 request, 12 ms)\n"])
    }

    @Test func debugShowsEveryStep() {
        let (log, captured) = log(.text, .debug)
        for event in idleRun { log.log(event, account: "a") }
        #expect(captured.all.count == idleRun.count)
        #expect(captured.all[2].contains("DEBUG [a] books: up to date"))
    }

    @Test func levelsFilterAndPrefixCarryPriorities() {
        let (log, captured) = log(.json, .warning, prefixes: true)
        log.log(.retrying(attempt: 1, delay: .milliseconds(250), reason: "timeout"), account: "a")
        log.log(.pageApplied(.books, PageCounts(applied: 3, deleted: 0, totalSoFar: 3)), account: "a")
        log.note("cannot open", account: "a", level: .error, event: "store_failed")
        log.note("fine", account: "a")
        #expect(captured.all.count == 2)
        #expect(captured.all[0].hasPrefix(#"<4>{"ts":"2025-12-01T00:51:03.042Z","level":"warning","account":"a","event":"retrying""#))
        #expect(captured.all[1].hasPrefix(#"<3>{"#))
        for line in captured.all {
            let object = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(3).utf8)) as? [String: Any]
            #expect(object != nil, "\(line)")
        }
    }

    @Test func serverTextCannotForgeALine() {
        let (log, captured) = log()
        log.log(.deadLettered(.notes, id: "n-1", status: 400, reason: "bad\nFAKE ERROR line\u{1B}[2J"), account: "a")
        #expect(captured.all.count == 1)
        #expect(captured.all[0].hasSuffix(#"bad\nFAKE ERROR line\u{1B}[2J"# + "\n"))
    }

    @Test func theWorstOutcomeDecidesTheStatus() {
        #expect(RunOutcome.worst([.synced, .configurationError, .needsAttention]) == .configurationError)
        #expect(RunOutcome.worst([.alreadyRunning, .backoff]).exitStatus == .temporaryFailure)
        #expect(RunOutcome.worst([]) == .synced)
        #expect(WorkerExitStatus.codes.map(\.rawValue) == [0, 1, 64, 74, 75, 77, 78])
        #expect(WorkerExitStatus.codes.first?.meaning.hasPrefix("success") == true)
    }
}

/// `--log-file`: private, never through a symlink, and bounded by rotation.
@Suite("Worker log file")
struct LogFileTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-logfile-\(UUID().uuidString)")
    }

    @Test func createsItsFolderPrivateAndRotatesPastTheLimit() throws {
        let path = folder.appendingPathComponent("state/sync.log").path
        let file = try LogFile(path: path, limit: 4096)
        let line = String(repeating: "x", count: 99) + "\n"
        for _ in 0..<50 { file.write(line) }  // 5,000 bytes: one rotation
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("state").path)[.posixPermissions] as? NSNumber
        #expect(folderMode?.intValue == 0o700)
        let old = try Data(contentsOf: URL(fileURLWithPath: path + ".1")).count
        let current = try Data(contentsOf: URL(fileURLWithPath: path)).count
        #expect(old > 4096 && old <= 4096 + 100)
        #expect(old + current == 5000)
    }

    @Test func refusesASymlinkInItsPlace() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let victim = folder.appendingPathComponent("victim")
        try Data("keep\n".utf8).write(to: victim)
        let path = folder.appendingPathComponent("sync.log").path
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim.path)
        #expect(throws: StorageError.self) { try LogFile(path: path) }
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep\n")
    }
}
