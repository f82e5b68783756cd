import Foundation

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
}

// MARK: - ProcessRunner

/// Runs a program with a controlled environment and captures its output.
public enum ProcessRunner {
    /// Runs to completion.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> ProcessResult {
        let process = try start(executable, arguments, environment: environment)
        let stdout = process.stdout.fileHandleForReading.readDataToEndOfFile()
        let stderr = process.stderr.fileHandleForReading.readDataToEndOfFile()
        process.process.waitUntilExit()
        return ProcessResult(
            status: process.process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// A started process and its pipes, for tests that act while it runs (kill it, race it).
    public struct Running: @unchecked Sendable {
        // NB: `@unchecked` is safe here: Process and Pipe are only used from the test
        // that started them, one call at a time.
        public let process: Process
        public let stdout: Pipe
        public let stderr: Pipe

        /// Reads stderr line by line until `predicate` matches a line; returns it (nil at EOF).
        public func waitForStderrLine(where predicate: (String) -> Bool) -> String? {
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

        public func finish() -> ProcessResult {
            let out = stdout.fileHandleForReading.readDataToEndOfFile()
            let err = stderr.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return ProcessResult(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                                 stderr: String(decoding: err, as: UTF8.self))
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
