import Foundation
import Synchronization

// MARK: - Built binaries

/// The project's built executables, for end-to-end tests that run them as processes.
public enum BuiltProduct {
    /// `.build/debug/<name>`, which `swift build --build-tests` builds for test targets
    /// that depend on the executable.
    public static func url(_ name: String) -> URL {
        FixtureFiles.repositoryRoot.appendingPathComponent(".build/debug/\(name)")
    }
}

// MARK: - ProcessResult

public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

// MARK: - ProcessRunner

/// Runs a program with a controlled environment and captures its output.
public enum ProcessRunner {
    /// Runs to completion.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> ProcessResult {
        try start(executable, arguments, environment: environment).finish()
    }

    /// Runs to completion without holding a thread of Swift's cooperative pool while it
    /// waits. NB: a synchronous wait inside a test blocks one of the pool's threads (as
    /// many as there are cores: two here); a long run — the convergence harness takes
    /// tens of seconds — then starves every other test's `await` of threads, and their
    /// time bounds fail on a loaded machine. The wait happens on a thread of its own
    /// (`BlockingWait`).
    ///
    /// Every wait ends: after `deadlineSeconds` the program is ended (`ProcessDeadline`).
    public static func runInBackground(
        _ executable: URL, _ arguments: [String], environment: [String: String],
        deadlineSeconds: Int = ProcessDeadline.standardSeconds
    ) async throws -> ProcessResult {
        let running = try start(executable, arguments, environment: environment)
        return await BlockingWait.run { running.finish(deadlineSeconds: deadlineSeconds) }
    }

    /// A started process and its pipes, for tests that act while it runs (kill it, race it).
    public struct Running: @unchecked Sendable {
        // NB: `@unchecked` is safe here: Process and Pipe are only used from the test
        // that started them, one call at a time.
        public let process: Process
        public let stdout: Pipe
        public let stderr: Pipe

        /// Reads stderr line by line until `predicate` matches a line; returns it (nil at EOF).
        /// A program that neither says it nor exits is ended at the deadline: nil then.
        public func waitForStderrLine(
            deadlineSeconds: Int = ProcessDeadline.standardSeconds, where predicate: (String) -> Bool
        ) -> String? {
            let deadline = ProcessDeadline(process: process, seconds: deadlineSeconds)
            defer { deadline.disarm() }
            var buffer = Data()
            let handle = stderr.fileHandleForReading
            while true {
                let chunk = handle.readData(ofLength: 1)
                guard let byte = chunk.first else { return nil }
                if byte == UInt8(ascii: "\n") {
                    let line = String(decoding: buffer, as: UTF8.self)
                    if predicate(line) { return line }
                    buffer.removeAll()
                } else {
                    buffer.append(byte)
                }
            }
        }

        public func kill9() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// Reads both pipes to their end and waits for the exit — at most `deadlineSeconds`
        /// (`ProcessDeadline`): a program still running then is ended, and its stderr
        /// says so and which processes were still running.
        ///
        /// NB: stderr is read on another thread while stdout is read here: read one after
        /// the other, a child that fills the stderr pipe (64 KiB) before closing stdout
        /// would wait for us while we wait for it.
        public func finish(deadlineSeconds: Int = ProcessDeadline.standardSeconds) -> ProcessResult {
            let deadline = ProcessDeadline(process: process, seconds: deadlineSeconds)
            let errors = Mutex(Data())
            let handle = stderr.fileHandleForReading
            let readErrors = BlockingWait.start {
                let data = handle.readDataToEndOfFile()
                errors.withLock { $0 = data }
            }
            let out = stdout.fileHandleForReading.readDataToEndOfFile()
            readErrors.wait()
            process.waitUntilExit()
            let ended = deadline.disarm() ?? ""
            return ProcessResult(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                                 stderr: String(decoding: errors.withLock { $0 }, as: UTF8.self) + ended)
        }
    }

    /// - Parameter stderr: the pipe for standard error, when the test must know it
    ///   beforehand (e.g. its inode, for `JOURNAL_STREAM`).
    public static func start(_ executable: URL, _ arguments: [String], environment: [String: String], stderr: Pipe = Pipe()) throws -> Running {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, stdout: stdout, stderr: stderr)
    }
}
