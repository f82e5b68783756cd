import Foundation
import Testing
import TestSupport

/// Local work never needs the server's credentials: whatever happened to an account's
/// password file (missing, moved, mode 644, a drive that is not mounted), reading,
/// writing, exporting, backing up and `--offline` work; a sync says what is wrong, once,
/// how to mend it, and exits 78; `shelf account password` mends it after the server
/// accepted the new password.
@Suite("shelf: local work without the password")
struct AccountPasswordTests {
    let sandbox: ShelfSandbox

    init() throws {
        sandbox = try ShelfSandbox()
    }

    /// An account `home` whose password is in `pw` (0600), saved without asking a server.
    private func account(server: String) async throws -> URL {
        let password = try sandbox.file("pw", contents: "s3cret-pw\n", mode: 0o600)
        let added = try await sandbox.run(
            "account", "add", "home", "--server", server, "--user", "ana", "--password-file", password.path, "--no-verify")
        try #require(added.status == 0, "\(added)")
        let book = try await sandbox.run("--offline", "book", "add", "--title", "Earthsea", "--author", "Ursula K. Le Guin")
        try #require(book.status == 0, "\(book)")
        return password
    }

    /// Every local command works, and none says a word about the password file.
    private func expectLocalWorkGoesOn(_ why: String) async throws {
        let backup = sandbox.root.appendingPathComponent("backup-\(UUID().uuidString).sqlite")
        let commands: [[String]] = [
            ["--offline", "books"], ["--offline", "tasks"], ["book", "add", "--title", "Kindred", "--author", "Octavia E. Butler"],
            ["task", "add", "Read chapter 2"], ["--offline", "export"], ["export", "--collection", "books"],
            ["backup", backup.path], ["status"], ["pending"], ["doctor"], ["--offline", "where"],
        ]
        for command in commands {
            let run = try await sandbox.run(command)
            #expect(run.status == 0, "\(why): \(run)")
            #expect(!run.stderr.contains("Error"), "\(why): \(run)")
        }
    }

    /// `shelf sync` fails with one `Error:` line that names what is wrong and how to mend it.
    private func expectSyncRefused(saying words: [String], notSaying refused: [String] = [], _ why: String) async throws {
        let sync = try await sandbox.run("sync")
        #expect(sync.status == 78, "\(why): \(sync)")
        #expect(sync.stdout.isEmpty, "\(why): \(sync)")
        let lines = sync.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("Error: ") == true, "\(why): \(sync)")
        for word in words { #expect(sync.stderr.contains(word), "\(why): '\(word)' in \(sync)") }
        for word in refused { #expect(!sync.stderr.contains(word), "\(why): no '\(word)' in \(sync)") }
        #expect(!sync.stderr.contains("s3cret-pw"))
    }

    @Test func aMissingPasswordFileLocksNothingLocalAndSyncSaysItIsMissing() async throws {
        let password = try await account(server: try unreachableServer())
        try FileManager.default.moveItem(at: password, to: sandbox.root.appendingPathComponent("pw.moved"))

        try await expectLocalWorkGoesOn("missing")
        try await expectSyncRefused(
            saying: ["\(password.path) is missing", "put it back", "shelf account password home"],
            notSaying: ["group or others", "chmod"], "missing")
    }

    @Test func aPasswordFileOnADriveThatIsNotMountedIsMissing() async throws {
        let password = try await account(server: try unreachableServer())
        // The path's folder is gone, as an unmounted drive's mount point would leave it.
        let unmounted = sandbox.root.appendingPathComponent("media/usb/pw")
        let file = sandbox.configHome.appendingPathComponent("shelf/accounts/home.json")
        let text = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: password.path, with: unmounted.path)
        try Data(text.utf8).write(to: file)

        try await expectLocalWorkGoesOn("unmounted")
        try await expectSyncRefused(saying: ["\(unmounted.path) is missing", "not mounted"], "unmounted")
    }

    @Test func aLooseModeLocksNothingLocalAndSyncSaysHowToMendIt() async throws {
        let password = try await account(server: try unreachableServer())
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: password.path)

        try await expectLocalWorkGoesOn("mode 644")
        try await expectSyncRefused(
            saying: ["\(password.path) is accessible by group or others (mode 644)", "chmod 600 \(password.path)"],
            notSaying: ["missing"], "mode 644")
    }

    @Test func anAccountFileRestoredAt644LocksNothingLocalAndIsTrustedWithNoServer() async throws {
        _ = try await account(server: try unreachableServer())
        let file = sandbox.configHome.appendingPathComponent("shelf/accounts/home.json")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)

        try await expectLocalWorkGoesOn("account file 644")
        try await expectSyncRefused(
            saying: ["the account file \(file.path) is accessible by group or others (mode 644)", "chmod 600 \(file.path)"],
            "account file 644")
    }

    @Test func aReadWarnsOnceAboutThePasswordAndShowsTheLocalData() async throws {
        let password = try await account(server: try unreachableServer())
        try FileManager.default.removeItem(at: password)
        // Not --offline: the read would refresh, and cannot ask the server.
        let books = try await sandbox.run("books")
        #expect(books.status == 0, "\(books)")
        #expect(books.stdout.contains("Earthsea"), "\(books)")
        let warnings = books.stderr.split(separator: "\n")
        #expect(warnings.count == 1, "\(books)")
        #expect(warnings.first?.hasPrefix("Warning: could not refresh books from the server (the password file") == true, "\(books)")
    }

    @Test func encryptionThatAsksTheServerSaysWhatToMendToo() async throws {
        let password = try await account(server: try unreachableServer())
        try FileManager.default.removeItem(at: password)
        let passphrase = try sandbox.file("passphrase", contents: "correct horse battery staple", mode: 0o600)
        let enable = try await sandbox.run(["encryption", "enable"], environment: ["SHELF_PASSPHRASE_FILE": passphrase.path])
        #expect(enable.status == 78, "\(enable)")
        #expect(enable.stderr.hasPrefix("Error: the password file \(password.path) is missing"), "\(enable)")
        // What is local answers: the encryption status, a lock.
        #expect(try await sandbox.run("encryption", "status").status == 0)
    }

    @Test func anEnvironmentAccountsPasswordFileIsReadOnlyBySync() async throws {
        let environment = [
            "SHELF_SERVER": try unreachableServer(), "SHELF_USER": "ana",
            "SHELF_PASSWORD_FILE": sandbox.root.appendingPathComponent("nowhere").path,
        ]
        let add = try await sandbox.run(["book", "add", "--title", "Kindred", "--author", "Octavia E. Butler"], environment: environment)
        #expect(add.status == 0, "\(add)")
        let sync = try await sandbox.run(["sync"], environment: environment)
        #expect(sync.status == 78, "\(sync)")
        #expect(sync.stderr.contains("is missing") && sync.stderr.contains("SHELF_PASSWORD_FILE"), "\(sync)")
    }

    // MARK: shelf account password

    @Test func aNewPasswordIsCheckedWithTheServerBeforeItIsSaved() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "pwchange")
        let file = try sandbox.file("kinto-pw", contents: user.password + "\n", mode: 0o600)
        let added = try await sandbox.run(["account", "add", "home", "--server", kinto.baseURL, "--user", user.name, "--password-file", file.path])
        try #require(added.status == 0, "\(added)")
        try FileManager.default.removeItem(at: file)
        #expect(try await sandbox.run("sync").status == 78)

        // A wrong password is refused (77) and nothing changes: the file is still named.
        let wrong = try await sandbox.run(["account", "password", "home"], environment: ["SHELF_PASSWORD": "not-it"])
        #expect(wrong.status == 77, "\(wrong)")
        #expect(wrong.stderr == "Error: \(kinto.baseURL) did not accept the password for user '\(user.name)'; the password was not changed\n")
        #expect(!wrong.stderr.contains("not-it"))
        #expect(try await sandbox.run("sync").stderr.contains("is missing"))

        // The right one, from a file that moved, is saved as its path.
        let moved = try sandbox.file("moved-pw", contents: user.password, mode: 0o600)
        let changed = try await sandbox.run(["account", "password", "--password-file", moved.path])
        #expect(changed.status == 0, "\(changed)")
        #expect(changed.stdout.contains("Changed the password of account home"), "\(changed)")
        #expect(!changed.stdout.contains(user.password) && !changed.stderr.contains(user.password))
        let account = try String(contentsOf: sandbox.configHome.appendingPathComponent("shelf/accounts/home.json"), encoding: .utf8)
        #expect(account.contains(moved.path) && !account.contains(user.password), "\(account)")
        let sync = try await sandbox.run("sync")
        #expect(sync.status == 0, "\(sync)")

        // From SHELF_PASSWORD it is kept in the 0600 account file.
        let given = try await sandbox.run(["account", "password", "home"], environment: ["SHELF_PASSWORD": user.password])
        #expect(given.status == 0, "\(given)")
        #expect(try await sandbox.run("sync").status == 0)
    }

    @Test func aNewPasswordNeedsAnAccountAndAPassword() async throws {
        let none = try await sandbox.run("account", "password")
        #expect(none.status == 78, "\(none)")
        #expect(none.stderr.hasPrefix("Error: no account to change"), "\(none)")
        _ = try await account(server: try unreachableServer())
        let unasked = try await sandbox.run("account", "password", "home")
        #expect(unasked.status == 78, "\(unasked)")
        #expect(unasked.stderr.contains("no password"), "\(unasked)")
        let unreachable = try await sandbox.run(["account", "password", "home"], environment: ["SHELF_PASSWORD": "x"])
        #expect(unreachable.status == 75, "\(unreachable)")
        let unchecked = try await sandbox.run(["account", "password", "home", "--no-verify"], environment: ["SHELF_PASSWORD": "x"])
        #expect(unchecked.status == 0, "\(unchecked)")
        #expect(unchecked.stdout.contains("not checked with the server"), "\(unchecked)")
    }

    // MARK: shelf account add, rm

    @Test func aRefusedPasswordForAUserWhoMayBeNewSuggestsCreate() async throws {
        let kinto = try KintoServer.shared()
        let user = TestUser(prefix: "unborn")
        let refused = try await sandbox.run(
            ["account", "add", "home", "--server", kinto.baseURL, "--user", user.name], environment: ["SHELF_PASSWORD": user.password])
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.stderr.contains("add --create to sign up"), "\(refused)")
        let created = try await sandbox.run(
            ["account", "add", "home", "--server", kinto.baseURL, "--user", user.name, "--create"],
            environment: ["SHELF_PASSWORD": user.password])
        #expect(created.status == 0, "\(created)")
    }

    @Test func removingAnAccountWithUnsyncedChangesNeedsYes() async throws {
        _ = try await account(server: try unreachableServer())
        let refused = try await sandbox.run("account", "rm", "home")
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.hasPrefix("Error: account home has 1 change not synced yet"), "\(refused)")
        #expect(refused.stderr.contains("--yes"), "\(refused)")
        #expect(try await sandbox.run("account", "list").stdout.contains("home"), "kept")

        let removed = try await sandbox.run("account", "rm", "home", "--force")
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.stderr.contains("Warning: account home was removed with 1 change not synced yet"), "\(removed)")
        #expect(removed.stdout.contains("Removed account home"), "\(removed)")
    }

    @Test func removingAnAccountWithNothingUnsyncedNeedsNoConfirmation() async throws {
        let password = try sandbox.file("pw", contents: "x", mode: 0o600)
        #expect(try await sandbox.run(
            "account", "add", "idle", "--server", try unreachableServer(), "--user", "ana", "--password-file", password.path, "--no-verify"
        ).status == 0)
        let removed = try await sandbox.run("account", "rm", "idle")
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.stderr.isEmpty, "\(removed)")
    }
}
