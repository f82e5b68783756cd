import Foundation
import Synchronization

// MARK: - ProcessDeadline

/// Every wait a test makes on a child process ends.
///
/// A test that waits for a program with no bound turns a hang anywhere below it — a
/// worker that never exits, a harness stuck in a loop, a grandchild that keeps a pipe
/// open — into a test run that never finishes, and CI then reports a time-out with
/// nothing to go on. Armed before the wait, a deadline ends the program instead: it
/// notes the process tree as it stood (who was still running, in which state), asks
/// the program to stop (SIGTERM, so the Python harness can print its threads' stacks),
/// and a few seconds later kills it and every descendant it had. The wait then returns
/// and the test fails with that note in the program's stderr.
public final class ProcessDeadline: Sendable {
    /// Far beyond any single program a test runs (the longest, a convergence-harness
    /// run, takes under a minute here), far below CI's limit for the whole suite.
    public static let standardSeconds = 600
    /// Between SIGTERM and SIGKILL: time for a program to say where it stood.
    static let graceSeconds = 5

    private let pid: pid_t
    private let what: String
    private let seconds: Int
    private let state = Mutex(State())
    /// Signalled by `disarm`: wakes the watch before its deadline.
    private let wake = DispatchSemaphore(value: 0)

    private struct State {
        var finished = false
        var note: String?
    }

    /// Arms a deadline for the running process `pid`; `disarm()` once the wait returned.
    public init(pid: pid_t, what: String, seconds: Int = ProcessDeadline.standardSeconds) {
        self.pid = pid
        self.what = what
        self.seconds = seconds
        // NB: a thread of its own, not a Dispatch timer: under load every thread of
        // Dispatch's global pool can be blocked in a wait like the one this bounds, and a
        // timer on it would wait with them (`BlockingWait`).
        Thread { [self] in
            if wake.wait(timeout: .now() + .seconds(seconds)) == .timedOut { fire() }
        }.start()
    }

    /// Ends the watch. Returns what the deadline did, when it fired: a line for the
    /// program's stderr, naming the processes that were still running.
    @discardableResult
    public func disarm() -> String? {
        let note = state.withLock { state in
            state.finished = true
            return state.note
        }
        wake.signal()
        return note
    }

    /// Arms a deadline for a started `process`, named by its executable.
    public convenience init(process: Process, seconds: Int = ProcessDeadline.standardSeconds) {
        self.init(pid: process.processIdentifier, what: process.executableURL?.lastPathComponent ?? "a program",
                  seconds: seconds)
    }

    // MARK: - Firing

    private func fire() {
        let stillRunning = state.withLock { !$0.finished }
        guard stillRunning, kill(pid, 0) == 0 else { return }
        let tree = ProcessTree.snapshot(from: pid)
        let note = "\n[test deadline] \(what) (pid \(pid)) still ran after \(seconds) s and was ended; "
            + "the processes then:\n" + tree.map(\.line).joined(separator: "\n") + "\n"
        state.withLock { $0.note = note }
        FileHandle.standardError.write(Data(note.utf8))
        // NB: SIGTERM may be blocked: a child inherits the signal mask of the thread that
        // started it, and Swift's pool threads block SIGTERM. The harness unblocks it.
        kill(pid, SIGTERM)
        Thread.sleep(forTimeInterval: TimeInterval(Self.graceSeconds))
        // The whole tree as noted, the program first: killed after its children, it could
        // go on to its next command in between. Children orphaned by its exit are in it.
        for process in tree { kill(process.pid, SIGKILL) }
    }
}

// MARK: - ProcessTree

/// A process and its descendants, read from /proc.
enum ProcessTree {
    struct Entry {
        let pid: pid_t
        let parent: pid_t
        let state: String
        let command: String

        var line: String { "  \(pid) (parent \(parent), state \(state)) \(command)" }
    }

    /// `root` first, then its descendants, parents before their children.
    static func snapshot(from root: pid_t) -> [Entry] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) }
            .compactMap(entry) ?? []
        var children: [pid_t: [Entry]] = [:]
        for entry in all { children[entry.parent, default: []].append(entry) }
        var out = all.filter { $0.pid == root }
        var index = 0
        while index < out.count {
            out += children[out[index].pid] ?? []
            index += 1
        }
        return out
    }

    /// `/proc/<pid>/stat` is `pid (comm) state ppid …`; comm may hold spaces and
    /// parentheses, so the fields after it are read from the last ')'.
    private static func entry(_ pid: pid_t) -> Entry? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let parent = Int32(fields[1]) else { return nil }
        let raw = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
        let command = String(decoding: raw, as: UTF8.self).split(separator: "\0").joined(separator: " ")
        return Entry(pid: pid, parent: parent, state: String(fields[0]), command: String(command.prefix(300)))
    }
}
