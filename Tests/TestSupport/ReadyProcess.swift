import Foundation
import Synchronization

// MARK: - ReadyProcess

/// A helper server the tests start with the project's Python — Kinto through
/// `Scripts/kinto-supervised.py`, the fault proxy, the TLS front — which announces the
/// loopback port it listens on with a first stdout line `ready <port>`.
///
/// One place for starting, reading that line, stopping (SIGTERM, then wait) and
/// stopping whatever is still running when the test process exits. The scripts also
/// watch their parent, so a crashed test run leaves nothing behind.
public final class ReadyProcess: Sendable {
    public let port: Int
    /// The script's process id (its children are the server it runs).
    public let pid: Int32
    private let process: Mutex<Process?>

    private init(port: Int, process: Process) {
        self.port = port
        self.pid = process.processIdentifier
        self.process = Mutex(process)
    }

    /// Starts `python arguments…` and waits for its `ready <port>` line.
    /// - Parameters:
    ///   - name: what it is, for the error when it does not start.
    ///   - environment: the child's environment (default: this process's).
    /// - Throws: `KintoServer.LaunchError.notInstalled` without the project's Python
    ///   (`make setup`), `.didNotStart` with what it said instead.
    public static func launch(
        _ name: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ReadyProcess {
        let python = KintoServer.python
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw KintoServer.LaunchError.notInstalled(python.path)
        }
        let process = Process()
        process.executableURL = python
        process.arguments = arguments
        process.environment = environment
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardInput = FileHandle.nullDevice
        try process.run()

        // The first line is `ready <port>`; anything else means it failed.
        let line = readLine(from: stdout.fileHandleForReading)
        guard let line, line.hasPrefix("ready "), let port = Int(line.dropFirst(6)) else {
            process.terminate()
            process.waitUntilExit()
            throw KintoServer.LaunchError.didNotStart(
                "\(name) said \(line.map { "'\($0)'" } ?? "nothing") (exit \(process.terminationStatus))")
        }
        let started = ReadyProcess(port: port, process: process)
        running.withLock { $0.append(started) }
        return started
    }

    /// Stops the process and waits for it to exit. Safe to call twice.
    public func stop() {
        let process = self.process.withLock { p -> Process? in defer { p = nil }; return p }
        guard let process else { return }
        process.terminate()
        process.waitUntilExit()
    }

    private static let running: Mutex<[ReadyProcess]> = {
        atexit { ReadyProcess.running.withLock { $0.forEach { $0.stop() } } }
        return Mutex([])
    }()

    /// One line, read a byte at a time so nothing after it is taken from the pipe.
    private static func readLine(from handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { break }
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
