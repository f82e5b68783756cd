import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `shelf ui`, the real binary, in a real terminal emulator (tmux, 80 × 24): a search typed,
/// a book opened and made a favorite, back; a book added by another `shelf` process shown
/// without a key press; a resize; SIGTERM leaving `stty -a` as it was and the path saved.
/// Two devices on a real Kinto: the cron line's `shelf-sync` in another window pulling a
/// book onto the open screen, and a conflict resolved on it. Under an interactive shell:
/// Ctrl-Z and `fg`, a note's body in `$EDITOR`, and `NO_COLOR`.
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

    /// An account whose password file went missing: the library opens and edits as
    /// ever, the status line counts an edit made on it, and `s` says what to mend.
    @Test func withoutThePasswordFileTheLibraryOpensAndSSaysWhatToMend() async throws {
        let sandbox = try ShelfSandbox()
        let password = try sandbox.file("pw", contents: "secret", mode: 0o600)
        #expect(try await sandbox.run(
            "account", "add", "home", "--server", try unreachableServer(), "--user", "ana", "--password-file", password.path, "--no-verify"
        ).status == 0)
        #expect(try await sandbox.run("book", "add", "--title", "Kindred", "--author", "Octavia E. Butler").status == 0)
        #expect(try await sandbox.run("-q", "sync").status == 75, "nothing synced yet")
        try FileManager.default.removeItem(at: password)

        let tmux = try Tmux()
        defer { tmux.stop() }
        let shelf = "env XDG_CONFIG_HOME=\(sandbox.configHome.path) XDG_DATA_HOME=\(sandbox.dataHome.path) \(ShelfBinary.url.path) ui"
        try tmux.start("\(shelf); sleep 600")
        _ = try await tmux.screen(containing: "1 waiting")
        #expect(try tmux.capture().contains("Kindred"))
        try tmux.run("send-keys", "-t", Tmux.session, "x")
        _ = try await tmux.screen(containing: "✓")
        try tmux.run("send-keys", "-t", Tmux.session, "s")
        let mend = try await tmux.screen(containing: "shelf account password home")
        #expect(mend.contains("Not synced"), "\(mend)")
        try tmux.run("send-keys", "-t", Tmux.session, "q")
    }

    // MARK: Two devices

    /// The laptop's `shelf ui` stays open while `shelf-sync` runs in another tmux window
    /// with the laptop's files only (`env -i`, as cron runs it): the phone's new book shows
    /// without a key; then both devices change one title, the worker's next run leaves a
    /// conflict, and it is resolved on the screen (C, Enter, this device's side, w) and synced
    /// with `s`.
    @Test func aCronRunInAnotherWindowAndAConflictResolvedOnScreen() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "ui-tmux")
        let laptop = try ShelfSandbox(), phone = try ShelfSandbox()
        for device in [laptop, phone] {
            let added = try await device.run(
                ["account", "add", "reader", "--server", kinto.baseURL, "--user", user.name], environment: ["SHELF_PASSWORD": user.password])
            #expect(added.status == 0, "\(added)")
        }
        let book = try await laptop.run("--json", "book", "add", "--title", "Dispossessed", "--author", "Ursula Le Guin")
        let id = try #require(try book.json()["id"] as? String)
        #expect(try await laptop.run("sync").status == 0)
        #expect(try await phone.run("sync").status == 0)

        let tmux = try Tmux()
        defer { tmux.stop() }
        let folder = tmux.folder.path
        let files = "XDG_CONFIG_HOME=\(laptop.configHome.path) XDG_DATA_HOME=\(laptop.dataHome.path) XDG_STATE_HOME=\(folder)/state"
        try tmux.start("env \(files) \(ShelfBinary.url.path) ui; sleep 600")
        _ = try await tmux.screen(containing: "1/1")
        let worker = BuiltProduct.url("shelf-sync").path
        func cronRun(_ name: String) async throws -> String {
            try tmux.run(
                "new-window", "-d", "-t", "\(Tmux.session):9",
                "env -i HOME=\(folder) PATH=/usr/bin:/bin \(files) \(worker) --all-accounts; echo $? > \(folder)/\(name)")
            return try await tmux.file(name).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        #expect(try await phone.run("book", "add", "--title", "Babel-17", "--author", "Samuel R. Delany").status == 0)
        #expect(try await phone.run("sync").status == 0)
        #expect(try await cronRun("first") == "0")
        #expect(try await tmux.screen(containing: "Babel-17").contains("1/2"))

        #expect(try await laptop.run("book", "edit", id, "--title", "The Dispossessed").status == 0)
        #expect(try await phone.run("book", "edit", id, "--title", "The Dispossessed: An Ambiguous Utopia").status == 0)
        #expect(try await phone.run("sync").status == 0)
        #expect(try await cronRun("second") == "1")  // a conflict is left for a person
        _ = try await tmux.screen(containing: "1 conflict")

        try tmux.send("C")
        _ = try await tmux.screen(containing: "books/\(id)")
        try tmux.send("Enter")
        _ = try await tmux.screen(containing: "KEEPS")
        try tmux.send("G", "l", "w")
        _ = try await tmux.screen(containing: "Resolved books/\(id)")
        // `s`: the resolution synced from the interface, in the background.
        try tmux.send("s")
        _ = try await tmux.screen(containing: "Synced.")
        #expect(try await phone.run("sync").status == 0)
        let onPhone = try await phone.run("--json", "book", "show", id).json()
        #expect((onPhone["book"] as? [String: Any])?["title"] as? String == "The Dispossessed")
        try tmux.send("Escape", "Escape")
        _ = try await tmux.screen(where: "the library with the laptop's title") { $0.contains("The Dispossessed") && !$0.contains("Ambiguous") }
    }

    // MARK: An interactive shell

    /// Under a shell with job control: Ctrl-Z gives the terminal back as it was (`stty -a`
    /// equal) and `fg` draws the interface again; `E` lends the terminal to `$EDITOR` and
    /// takes it back; `NO_COLOR` draws no colour, the selection still shown reversed.
    @Test func controlZAndFgTheEditorAndNoColor() async throws {
        let sandbox = try ShelfSandbox()
        let book = try await sandbox.run("--json", "book", "add", "--title", "Solaris", "--author", "Stanisław Lem")
        let id = try #require(try book.json()["id"] as? String)
        #expect(try await sandbox.run("note", "add", "--title", "Ocean", "--body", "A thinking sea.", "--book", id).status == 0)
        let tmux = try Tmux()
        defer { tmux.stop() }
        let folder = tmux.folder.path
        let editor = "\(folder)/editor"
        try "#!/bin/sh\necho 'It remembers.' >> \"$1\"\n".write(toFile: editor, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: editor)
        let shelf = "env XDG_CONFIG_HOME=\(sandbox.configHome.path) XDG_DATA_HOME=\(sandbox.dataHome.path) EDITOR=\(editor) \(ShelfBinary.url.path) ui"
        try tmux.start("env PS1='ready$ ' bash --norc --noprofile -i")
        _ = try await tmux.screen(containing: "ready$")
        try tmux.send("stty -a > \(folder)/before; \(shelf)", "Enter")
        _ = try await tmux.screen(containing: "1/1")

        try tmux.send("C-z")
        _ = try await tmux.screen(where: "the shell's prompt after Ctrl-Z") { $0.contains("Stopped") && !$0.contains("Library") }
        try tmux.send("stty -a > \(folder)/during", "Enter")
        #expect(try await tmux.file("during") == (try String(contentsOfFile: "\(folder)/before", encoding: .utf8)))
        try tmux.send("clear; fg", "Enter")
        _ = try await tmux.screen(where: "the interface again after fg") { $0.contains("Library") && $0.contains("1/1") }

        try tmux.send("N", "Enter")
        _ = try await tmux.screen(containing: "A thinking sea.")
        try tmux.send("E")
        _ = try await tmux.screen(containing: "It remembers.")
        #expect(try await tmux.screen(containing: "Saved; the next sync sends it.").contains("Library › Ocean"))
        try tmux.send("q")
        _ = try await tmux.screen(where: "the shell after q") { !$0.contains("Library") && $0.contains("ready$") }
        let note = try await sandbox.run("--json", "notes").stdout
        #expect(note.contains("A thinking sea.\\nIt remembers."), "\(note)")

        // Colour, then none: the path bar's blue background goes, the reversed selection stays.
        // (The interface starts where it was left: at the note.)
        try tmux.send("clear; \(shelf)", "Enter")
        _ = try await tmux.screen(containing: "Library › Ocean")
        #expect(try Self.hasColour(tmux.capture(escapes: true)))
        try tmux.send("q")
        _ = try await tmux.screen(where: "the shell after q") { !$0.contains("Library") }
        try tmux.send("clear; NO_COLOR=1 \(shelf)", "Enter")
        _ = try await tmux.screen(containing: "Library › Ocean")
        let monochrome = try tmux.capture(escapes: true)
        #expect(!Self.hasColour(monochrome), "\(monochrome)")
        #expect(Self.hasReverse(monochrome), "\(monochrome)")
        try tmux.send("q")
    }

    /// Whether `capture-pane -e` output sets a foreground or background colour (39 and 49,
    /// the defaults, are not colours). NB: ICU spells the escape `\x{1B}`.
    private static func hasColour(_ screen: String) -> Bool {
        screen.range(of: #"\x{1B}\[([0-9;]*;)?(3[0-8]|4[0-8]|9[0-7]|10[0-7])(;[0-9;]*)?m"#, options: .regularExpression) != nil
    }

    /// Whether it turns reverse video on (SGR 7), alone or with other attributes.
    private static func hasReverse(_ screen: String) -> Bool {
        screen.range(of: #"\x{1B}\[([0-9;]*;)?7(;[0-9;]*)?m"#, options: .regularExpression) != nil
    }
}
