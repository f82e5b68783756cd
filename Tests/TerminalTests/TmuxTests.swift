import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The demo (`Tests/TerminalDemo`) in a real terminal emulator: tmux, detached, 80 × 24.
/// Keys go in with `send-keys`, the screen comes out with `capture-pane`, and SIGTERM must
/// leave `stty -a` as it was. Each wait polls the pane against a deadline.
@Suite("tmux", .enabled(if: Tmux.isInstalled, "tmux is not installed (make setup)"))
struct TmuxTests {
    @Test func theDemoTakesKeysAndGivesTheTerminalBackOnSIGTERM() async throws {
        let tmux = try Tmux()
        defer { tmux.stop() }
        let folder = tmux.folder.path
        let demo = BuiltProduct.url("shelf-terminal-demo").path
        // NB: the shell sleeps after the demo so the pane stays readable whatever the wait:
        // on a machine busy with the whole suite a test can be held for tens of seconds.
        // `stop()` kills it.
        try tmux.start(
            "stty -a > \(folder)/before; \(demo) --pid-file \(folder)/pid; echo $? > \(folder)/status; stty -a > \(folder)/after; sleep 600")

        #expect(try await tmux.screen(containing: "Shelf terminal demo").contains("wide: 本棚 📚"))
        #expect(try await tmux.screen(containing: "size: 80x24") != "")

        try tmux.run("send-keys", "-t", Tmux.session, "x")
        #expect(try await tmux.screen(containing: "last: key character(\"x\")") != "")
        try tmux.run("send-keys", "-t", Tmux.session, "Up")
        #expect(try await tmux.screen(containing: "last: key up") != "")
        try tmux.run("send-keys", "-t", Tmux.session, "Escape")
        #expect(try await tmux.screen(containing: "last: key escape") != "")
        try tmux.run("set-buffer", "-b", "shelf", "q pasted")
        try tmux.run("paste-buffer", "-p", "-b", "shelf", "-t", Tmux.session)
        #expect(try await tmux.screen(containing: "last: paste \"q pasted\"") != "")

        try tmux.run("resize-window", "-t", Tmux.session, "-x", "100", "-y", "30")
        #expect(try await tmux.screen(containing: "size: 100x30") != "")
        try tmux.run("resize-window", "-t", Tmux.session, "-x", "80", "-y", "24")
        #expect(try await tmux.screen(containing: "size: 80x24") != "")

        let pid = try #require(Int32(String(contentsOfFile: "\(folder)/pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, SIGTERM) == 0)
        let status = try await tmux.file("status")
        #expect(status.trimmingCharacters(in: .whitespacesAndNewlines) == "143")
        let after = try await tmux.file("after")
        #expect(after == (try String(contentsOfFile: "\(folder)/before", encoding: .utf8)))
        // Back on the shell's screen: the alternate screen is gone.
        #expect(!(try tmux.capture()).contains("Shelf terminal demo"))
    }

    @Test func controlZGivesTheTerminalBackAndRedrawsOnReturn() async throws {
        let tmux = try Tmux()
        defer { tmux.stop() }
        let demo = BuiltProduct.url("shelf-terminal-demo").path
        // NB: `sh -c` has no job control, so the demo's process group is orphaned and the
        // kernel discards its SIGTSTP: the suspension restores, returns at once and redraws.
        try tmux.start("\(demo); echo status=$?; sleep 600")
        _ = try await tmux.screen(containing: "Shelf terminal demo")
        try tmux.run("send-keys", "-t", Tmux.session, "C-z")
        #expect(try await tmux.screen(containing: "last: redraw") != "")
        try tmux.run("send-keys", "-t", Tmux.session, "q")
        #expect(try await tmux.screen(containing: "status=0") != "")
    }
}

// MARK: - Tmux

/// A tmux server of the test's own (its own socket, no configuration file).
struct Tmux {
    static let session = "shelf"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    let folder: URL
    private var socket: String { folder.appendingPathComponent("tmux.sock").path }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-tmux-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Starts the server with one pane running `command`.
    /// NB: through Python's `subprocess` (which closes every descriptor but 0, 1 and 2):
    /// the server tmux forks keeps its client's descriptors, and Foundation's `Process`
    /// learns of a child's exit through one of them, so it would wait for the server too.
    func start(_ command: String) throws {
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
    func stop() {
        for format in ["#{pane_pid}", "#{pid}"] {
            guard let pid = (try? run("display-message", "-p", "-t", Self.session, format))
                .flatMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }), pid > 1 else { continue }
            kill(format == "#{pane_pid}" ? -pid : pid, SIGKILL)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    @discardableResult
    func run(_ arguments: String...) throws -> String {
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/tmux"), ["-S", socket, "-f", "/dev/null"] + arguments, environment: environment)
        guard result.status == 0 else { throw Failure(description: "tmux \(arguments.joined(separator: " ")): \(result.stderr)") }
        return result.stdout
    }

    func capture() throws -> String {
        try run("capture-pane", "-p", "-t", Self.session)
    }

    /// The pane once it shows `text`; fails after thirty seconds.
    func screen(containing text: String) async throws -> String {
        try await waitFor("the screen to show \(text.debugDescription)") {
            let screen = try capture()
            return screen.contains(text) ? screen : nil
        }
    }

    /// A file the pane's shell writes, once it is there and ends with a newline.
    func file(_ name: String) async throws -> String {
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
