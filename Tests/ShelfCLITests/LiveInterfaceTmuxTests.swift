import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `shelf ui`, the real binary, in a real terminal emulator (tmux, 80 × 24): a search typed,
/// a book opened and made a favorite, back; a book added by another `shelf` process shown
/// without a key press; a resize; SIGTERM leaving `stty -a` as it was and the path saved.
/// Each wait polls the pane against a deadline, never a fixed sleep.
@Suite("shelf ui under tmux", .enabled(if: Tmux.isInstalled, "tmux is not installed (make setup)"))
struct LiveInterfaceTmuxTests {
    @Test func searchOpenFavoriteBackAnotherProcessResizeAndSIGTERM() async throws {
        let sandbox = try ShelfSandbox()
        for (title, author) in [("The Dispossessed", "Ursula K. Le Guin"), ("Dune", "Frank Herbert"), ("Solaris", "Stanisław Lem")] {
            #expect(try await sandbox.run("book", "add", "--title", title, "--author", author).status == 0)
        }
        let tmux = try Tmux()
        defer { tmux.stop() }
        let folder = tmux.folder.path
        let shelf = "env XDG_CONFIG_HOME=\(sandbox.configHome.path) XDG_DATA_HOME=\(sandbox.dataHome.path) \(ShelfBinary.url.path) ui"
        // NB: the shell sleeps afterwards so the pane stays readable; `stop()` kills it.
        try tmux.start(
            "stty -a > \(folder)/before; sh -c 'echo $$ > \(folder)/pid; exec \(shelf)'; echo $? > \(folder)/status; "
                + "stty -a > \(folder)/after; sleep 600")

        _ = try await tmux.screen(containing: "1/3")
        try tmux.run("send-keys", "-t", Tmux.session, "/", "s", "o", "l")
        _ = try await tmux.screen(containing: "1/1 of 3")
        try tmux.run("send-keys", "-t", Tmux.session, "Enter", "Enter")
        _ = try await tmux.screen(containing: "Library › Solaris")
        try tmux.run("send-keys", "-t", Tmux.session, "f")
        _ = try await tmux.screen(containing: "★ favorite")
        try tmux.run("send-keys", "-t", Tmux.session, "Escape")
        #expect(try await tmux.screen(containing: "›★  Solaris").contains("/sol"))
        try tmux.run("send-keys", "-t", Tmux.session, "Escape")
        _ = try await tmux.screen(containing: "The Dispossessed")

        // Another process writes the store: the open screen shows it without a key.
        #expect(try sandbox.runBinary("book", "add", "--title", "Babel-17", "--author", "Samuel R. Delany").status == 0)
        #expect(try await tmux.screen(containing: "Babel-17").contains("1/4"))

        try tmux.run("resize-window", "-t", Tmux.session, "-x", "120", "-y", "30")
        _ = try await tmux.screen(containing: String(repeating: " ", count: 60) + "order: title")

        try tmux.run("resize-window", "-t", Tmux.session, "-x", "80", "-y", "24")
        _ = try await tmux.screen(containing: String(repeating: " ", count: 40) + "order: title")

        try tmux.run("send-keys", "-t", Tmux.session, "Enter")
        _ = try await tmux.screen(containing: "Library › Babel-17")
        let pid = try #require(Int32(String(contentsOfFile: "\(folder)/pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, SIGTERM) == 0)
        #expect(try await tmux.file("status").trimmingCharacters(in: .whitespacesAndNewlines) == "143")
        #expect(try await tmux.file("after") == (try String(contentsOfFile: "\(folder)/before", encoding: .utf8)))
        let shellScreen = try tmux.capture()
        #expect(!shellScreen.contains("Library ›"), "\(shellScreen)")

        // The path and the favorite were saved: `shelf where` continues from them.
        let place = try await sandbox.run("where")
        #expect(place.stdout.contains("Babel-17"))
        #expect(try await sandbox.run("favorites").stdout.contains("Solaris"))
    }
}
