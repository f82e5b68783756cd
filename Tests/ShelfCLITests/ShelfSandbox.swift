import ArgumentParsing
import Foundation
import ShelfCommands
import Testing
import TestSupport

// MARK: - ShelfSandbox

/// A reader's machine for one test: its own `HOME`, `XDG_CONFIG_HOME` and
/// `XDG_DATA_HOME` in a temporary folder, and an environment that inherits nothing
/// of Shelf's (`SHELF_*`, `NO_COLOR`) from whoever runs the tests.
///
/// `run` runs a `shelf` command line in-process (`ShelfProgram.run`) with a console that
/// captures what it prints and is no terminal, as a process's streams on files would be;
/// `runBinary` starts the built `shelf` binary as a process, for the end-to-end tests.
final class ShelfSandbox {
    let root: URL
    /// What every run gets; `run(_:environment:)` adds to it.
    var environment: [String: String]

    var configHome: URL { root.appendingPathComponent("config") }
    var dataHome: URL { root.appendingPathComponent("data") }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": root.path,
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            // NB: half a minute for a shared test server's first byte (10 s by default):
            // under a full parallel run on two cores one kept `account password` waiting
            // past 10 s. Tests of a stalled server set their own (`BoundedWaitTests`).
            "SHELF_STALL_SECONDS": "30",
            // NB: ten seconds for a read's refreshes (one by default): under a full parallel
            // run on two cores a shared test server once took longer than a second to answer
            // `shelf products`. Tests of the read's own bound set 1 (`HostileServerReadTests`).
            "SHELF_READ_SECONDS": "10",
        ]
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// Runs `shelf arguments…` in-process.
    func run(_ arguments: String..., environment extra: [String: String] = [:]) async throws -> ShelfRun {
        try await run(arguments, environment: extra)
    }

    /// - Parameters:
    ///   - input: what standard input holds; nothing when nil.
    ///   - terminals: the streams that answer `isatty` with yes.
    ///   - size: the terminal's size the console reports.
    ///   - now: the program's clock.
    func run(
        _ arguments: [String], environment extra: [String: String] = [:], input: String? = nil,
        terminals: Set<Console.Stream> = [], size: (columns: Int, rows: Int)? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> ShelfRun {
        let captured = CapturedConsole(input: input, terminals: terminals, size: size)
        let context = ProgramContext(
            arguments: arguments, environment: environment.merging(extra) { _, new in new }, workingDirectory: root.path,
            console: captured.console, clock: .init(now: now, sleep: { try await Task.sleep(for: $0) }))
        let status = await ShelfProgram.run(context)
        return ShelfRun(arguments: arguments, status: status.rawValue, stdout: captured.standardOutput, stderr: captured.standardError)
    }

    /// Runs the built `shelf arguments…` as a process and waits for it.
    func runBinary(_ arguments: String..., environment extra: [String: String] = [:]) throws -> ShelfRun {
        try runBinary(arguments, environment: extra)
    }

    /// - Parameter input: what standard input holds (a file); nothing when nil.
    func runBinary(_ arguments: [String], environment extra: [String: String] = [:], input: String? = nil) throws -> ShelfRun {
        try runProgram(ShelfBinary.url.path, arguments, environment: extra, input: input)
    }

    /// Runs another program (e.g. `script`, to give `shelf` a terminal) the same way.
    func runProgram(_ path: String, _ arguments: [String], environment extra: [String: String] = [:], input: String? = nil) throws -> ShelfRun {
        try Self.runProcess(path, arguments, environment: environment.merging(extra) { _, new in new }, in: root, input: input)
    }

    /// `runProgram` without holding a thread of Swift's cooperative pool while the program
    /// runs (see `ProcessRunner.runInBackground`): for runs that take seconds, so the other
    /// tests' awaits are not starved of threads.
    func runProgramInBackground(
        _ path: String, _ arguments: [String], environment extra: [String: String] = [:], input: String? = nil
    ) async throws -> ShelfRun {
        let (root, environment) = (root, environment.merging(extra) { _, new in new })
        return try await BlockingWait.run { try Self.runProcess(path, arguments, environment: environment, in: root, input: input) }
    }

    /// `runBinary` off the cooperative pool.
    func runBinaryInBackground(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> ShelfRun {
        try await runProgramInBackground(ShelfBinary.url.path, arguments, environment: extra)
    }

    private static func runProcess(
        _ path: String, _ arguments: [String], environment: [String: String], in root: URL, input: String?
    ) throws -> ShelfRun {
        let id = UUID().uuidString
        let outURL = root.appendingPathComponent("out-\(id)"), errURL = root.appendingPathComponent("err-\(id)")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = root
        if let input {
            let inURL = root.appendingPathComponent("in-\(id)")
            try Data(input.utf8).write(to: inURL)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        let deadline = ProcessDeadline(process: process)
        process.waitUntilExit()
        let ended = deadline.disarm() ?? ""
        return ShelfRun(
            arguments: arguments, status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self) + ended)
    }

    /// A file in the sandbox with `contents` and POSIX `mode`.
    func file(_ name: String, contents: String, mode: Int) throws -> URL {
        let url = root.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        return url
    }
}

// MARK: - ShelfRun

/// One finished `shelf` process.
struct ShelfRun: CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let stdout: String
    let stderr: String

    /// Standard output as JSON.
    func json() throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        return try #require(value as? [String: Any], "not a JSON object: \(stdout)")
    }

    var description: String {
        "shelf \(arguments.joined(separator: " ")) → \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }
}

// MARK: - ShelfBinary

/// The `shelf` built next to this test bundle (the test target depends on it, so
/// `swift build --build-tests` builds both into the same folder).
enum ShelfBinary {
    static let url: URL = {
        let besideTests = Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("shelf")
        if let besideTests, FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return FixtureFiles.repositoryRoot.appendingPathComponent(".build/debug/shelf")
    }()
}

// MARK: - A server that is not there

/// A loopback URL nothing listens on, for the rest of the test process.
///
/// The port stays bound (never listening) by a socket that is deliberately never
/// closed: a connection to it is refused at once, and no Kinto another test starts
/// can be handed the same port. A port taken back by the kernel could be, and then a
/// test that expects "server unreachable" (75) meets a real server that says 401.
/// The socket has no `SO_REUSEADDR`, so Linux lets nobody else bind the port while it
/// is held; the cost is one descriptor per call.
func unreachableServer() throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0, "no socket")
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    if !bound { close(fd) }
    try #require(bound, "no free loopback port")
    return "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/v1"
}
