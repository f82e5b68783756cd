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
