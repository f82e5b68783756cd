import Foundation

// MARK: - MeasuredProcess

/// Runs a program and measures it as the kernel saw it: wall time, and peak resident
/// memory from `wait4`'s `rusage` (`ru_maxrss`).
///
/// NB: the program is forked by a small Python parent, not spawned from the test
/// process. Linux carries a process' RSS high-water mark across `execve` from the
/// memory it replaced, so a child spawned straight from a test runner that uses a few
/// hundred MB would report the runner's peak, not its own; a child forked from a
/// ~10 MB interpreter starts from that instead.
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

    private static let measurer = """
    import os, sys, time
    out, err, program = sys.argv[1], sys.argv[2], sys.argv[3:]
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd_in = os.open("/dev/null", os.O_RDONLY)
        fd_out = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        fd_err = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd_in, 0); os.dup2(fd_out, 1); os.dup2(fd_err, 2)
        try:
            os.execv(program[0], program)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    print(code if code >= 0 else 128 - code, time.monotonic() - started, usage.ru_maxrss)
    """

    /// Runs `executable arguments…` with exactly `environment`, standard input from
    /// /dev/null and both outputs into files, and waits for it.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> MeasuredProcess {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("measured-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("out").path, errPath = folder.appendingPathComponent("err").path

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", measurer, outPath, errPath, executable.path] + arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // NB: named by the program measured: the process here is the measuring parent.
        let deadline = ProcessDeadline(pid: process.processIdentifier, what: executable.lastPathComponent)
        let summary = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if let ended = deadline.disarm() {
            throw Failure(description: ended)
        }
        let fields = summary.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard fields.count == 3, let status = Int32(fields[0]), let wall = Double(fields[1]), let peak = Int(fields[2]) else {
            throw Failure(description: "the measuring parent printed '\(summary)' (exit \(process.terminationStatus))")
        }
        return MeasuredProcess(
            status: status,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
            wallSeconds: wall, peakKilobytes: peak)
    }
}
