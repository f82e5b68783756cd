import Foundation
import Synchronization

// MARK: - KintoServer

/// A real Kinto server for integration tests: started on a free loopback port by
/// `Scripts/kinto-supervised.py` (which stops it when this process exits, even on a
/// crash) and stopped by `stop()` or at process exit.
///
/// Tests isolate their data by using a fresh user name per test: with Basic auth each
/// user:password is its own account with a private `default` bucket.
public final class KintoServer: Sendable {
    public let port: Int
    public var origin: String { "http://127.0.0.1:\(port)" }
    /// The API root, `http://127.0.0.1:<port>/v1`.
    public var baseURL: String { "\(origin)/v1" }

    private let process: Mutex<Process?>

    private init(port: Int, process: Process) {
        self.port = port
        self.process = Mutex(process)
    }

    public enum LaunchError: Error, CustomStringConvertible {
        case notInstalled(String)
        case didNotStart(String)
        public var description: String {
            switch self {
            case .notInstalled(let path): "Kinto not found at \(path): run 'make setup'"
            case .didNotStart(let why): "Kinto did not start: \(why)"
            }
        }
    }

    /// The Python of the project's `.venv`, where `make setup` installs Kinto.
    public static var python: URL {
        if let override = ProcessInfo.processInfo.environment["SHELF_VENV"] {
            return URL(fileURLWithPath: override).appendingPathComponent("bin/python")
        }
        return FixtureFiles.repositoryRoot.appendingPathComponent(".venv/bin/python")
    }

    /// Starts a new server.
    /// - Parameters:
    ///   - seedCatalog: create the shared, read-only `shop/products` catalog from `Fixtures/seed`.
    ///   - settings: Kinto settings as environment overrides, e.g. `["KINTO_BACKOFF": "10"]`.
    public static func start(seedCatalog: Bool = true, settings: [String: String] = [:]) throws -> KintoServer {
        var arguments = [FixtureFiles.repositoryRoot.appendingPathComponent("Scripts/kinto-supervised.py").path]
        if seedCatalog { arguments.append("--seed-catalog") }
        return try launch(arguments, settings: settings)
    }

    /// Starts a new server whose storage can be backed up and restored
    /// (`saveBackup()`, `restoreBackup()`), to play a server restored to an older state.
    /// No shop catalog.
    public static func startWithBackups() throws -> KintoServer {
        try launch([FixtureFiles.repositoryRoot.appendingPathComponent("Scripts/kinto-with-backups.py").path], settings: [:])
    }

    private static func launch(_ arguments: [String], settings: [String: String]) throws -> KintoServer {
        let python = Self.python
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw LaunchError.notInstalled(python.path)
        }
        let process = Process()
        process.executableURL = python
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(settings) { $1 }
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardInput = FileHandle.nullDevice
        try process.run()

        // The first line is `ready <port>`; anything else means it failed.
        let line = readLine(from: stdout.fileHandleForReading)
        guard let line, line.hasPrefix("ready "), let port = Int(line.dropFirst(6)) else {
            process.terminate()
            throw LaunchError.didNotStart(line ?? "no output (exit \(process.isRunning ? "pending" : "\(process.terminationStatus)"))")
        }
        let server = KintoServer(port: port, process: process)
        Self.running.withLock { $0.append(server) }
        return server
    }

    /// Stops the server and waits for it to exit. Safe to call twice.
    public func stop() {
        let process = self.process.withLock { p -> Process? in defer { p = nil }; return p }
        guard let process else { return }
        process.terminate()
        process.waitUntilExit()
    }

    // MARK: Shared server

    /// One server shared by every test in this process that needs only a plain Kinto
    /// (most do), started on first use and stopped at exit.
    public static func shared() throws -> KintoServer {
        try sharedServer.withLock { server in
            if let server { return server }
            let started = try start()
            server = started
            return started
        }
    }

    private static let sharedServer = Mutex<KintoServer?>(nil)
    private static let running: Mutex<[KintoServer]> = {
        atexit { KintoServer.running.withLock { $0.forEach { $0.stop() } } }
        return Mutex([])
    }()

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

// MARK: - Test users

/// A fresh Kinto user per test: its `default` bucket starts empty.
public struct TestUser: Sendable {
    public let name: String
    public let password: String

    public init(prefix: String = "user") {
        self.name = "\(prefix)-\(UUID().uuidString.lowercased().prefix(12))"
        self.password = "pw-\(UUID().uuidString)"
    }
}
