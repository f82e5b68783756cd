import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - MeasuredProcess

/// Runs a program and measures it as the kernel saw it: wall time, and peak resident
/// memory from `wait4`'s `rusage` (`ru_maxrss`), which only the parent that reaps the
/// child gets — so it is spawned with `posix_spawn` here, not with Foundation's
/// `Process` (which reaps its children itself).
public struct MeasuredProcess: Sendable, CustomStringConvertible {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public let wallSeconds: Double
    /// Peak resident set size, in KiB.
    public let peakKilobytes: Int

    public var description: String {
        "exit \(status) after \(String(format: "%.2f", wallSeconds)) s, peak \(peakKilobytes / 1024) MiB\nstdout: \(stdout)\nstderr: \(stderr)"
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `executable arguments…` with exactly `environment`, standard input from
    /// /dev/null and both outputs into files, and waits for it.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> MeasuredProcess {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("measured-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("out").path, errPath = folder.appendingPathComponent("err").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let started = ContinuousClock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure(description: "posix_spawn \(executable.path): \(String(cString: strerror(spawned)))") }

        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw Failure(description: "wait4: \(String(cString: strerror(errno)))") }
        }
        let elapsed = ContinuousClock.now - started
        // NB: WIFEXITED / WEXITSTATUS are macros Swift can't see: the low 7 bits are
        // the signal (0 when it exited), the next 8 the exit status.
        let signal = status & 0x7F
        let exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        return MeasuredProcess(
            status: exitStatus,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
            wallSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            peakKilobytes: usage.ru_maxrss)
    }
}
