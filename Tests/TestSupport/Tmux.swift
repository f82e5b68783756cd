import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Tmux

/// A tmux server of the test's own (its own socket, no configuration file).
public struct Tmux {
    public static let session = "shelf"
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    public let folder: URL
    private var socket: String { folder.appendingPathComponent("tmux.sock").path }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-tmux-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Starts the server with one pane running `command`.
    /// NB: through Python's `subprocess` (which closes every descriptor but 0, 1 and 2):
    /// the server tmux forks keeps its client's descriptors, and Foundation's `Process`
    /// learns of a child's exit through one of them, so it would wait for the server too.
    public func start(_ command: String) throws {
        let arguments = ["-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-s", Self.session, command]
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL))",
             "/usr/bin/tmux"] + arguments,
            environment: environment)
        guard result.status == 0 else { throw Failure(description: "tmux new-session: \(result.stderr)") }
    }

    private var environment: [String: String] {
        ["PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8", "HOME": folder.path]
    }

    /// Ends the server and what runs in its panes (they get SIGHUP), whatever state the
    /// test left them in.
    /// NB: SIGKILL, to the pane's process group and to the server: they inherit the test
    /// process's dispositions, and a SIGHUP or SIGTERM it ignores they would ignore too.
    public func stop() {
        for format in ["#{pane_pid}", "#{pid}"] {
            guard let pid = (try? run("display-message", "-p", "-t", Self.session, format))
                .flatMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }), pid > 1 else { continue }
            kill(format == "#{pane_pid}" ? -pid : pid, SIGKILL)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    @discardableResult
    public func run(_ arguments: String...) throws -> String {
        try run(arguments)
    }

    @discardableResult
    public func run(_ arguments: [String]) throws -> String {
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/tmux"), ["-S", socket, "-f", "/dev/null"] + arguments, environment: environment)
        guard result.status == 0 else { throw Failure(description: "tmux \(arguments.joined(separator: " ")): \(result.stderr)") }
        return result.stdout
    }

    /// The pane's text; with `escapes`, with the SGR sequences of its colours and
    /// attributes (`capture-pane -e`).
    public func capture(escapes: Bool = false) throws -> String {
        escapes ? try run("capture-pane", "-p", "-e", "-t", Self.session) : try run("capture-pane", "-p", "-t", Self.session)
    }

    /// Types `keys` into the pane (tmux key names: `Enter`, `Escape`, `C-z`, or text).
    public func send(_ keys: String...) throws {
        _ = try run(["send-keys", "-t", Self.session] + keys)
    }

    /// The pane once `probe` finds what it waits for in it; fails after thirty seconds.
    public func screen(where what: String, _ probe: @escaping (String) -> Bool) async throws -> String {
        try await waitFor(what) {
            let screen = try capture()
            return probe(screen) ? screen : nil
        }
    }

    /// The pane once it shows `text`; fails after ten seconds.
    public func screen(containing text: String) async throws -> String {
        try await waitFor("the screen to show \(text.debugDescription)") {
            let screen = try capture()
            return screen.contains(text) ? screen : nil
        }
    }

    /// A file the pane's shell writes, once it is there and ends with a newline.
    public func file(_ name: String) async throws -> String {
        try await waitFor("\(name) to be written") {
            let contents = try? String(contentsOfFile: folder.appendingPathComponent(name).path, encoding: .utf8)
            return contents.flatMap { $0.hasSuffix("\n") ? $0 : nil }
        }
    }

    /// NB: the probe runs once more after the deadline: on a machine busy with the whole
    /// suite this task can be held past it between two probes, with the screen long there.
    private func waitFor(_ what: String, _ probe: () throws -> String?) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let found = try probe() { return found }
            try await Task.sleep(for: .milliseconds(20))
        }
        if let found = try probe() { return found }
        throw Failure(description: "waited 30 s for \(what); the pane shows:\n\(try capture())")
    }
}
