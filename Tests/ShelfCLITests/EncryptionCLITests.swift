import Foundation
import Testing
import TestSupport

/// `shelf encryption` in-process against a real Kinto: turned on with data, joined from
/// another device, refused with a wrong passphrase, locked; the passphrase only ever
/// from a file or a prompt.
@Suite("shelf encryption (real Kinto)")
struct EncryptionCLITests {
    /// A passphrase file the way `SHELF_PASSPHRASE_FILE` wants it: mode 600.
    private func passphraseFile(_ sandbox: ShelfSandbox, _ passphrase: String, name: String = "passphrase") throws -> String {
        let file = sandbox.root.appendingPathComponent(name)
        try Data((passphrase + "\n").utf8).write(to: file)
        #expect(chmod(file.path, 0o600) == 0)
        return file.path
    }

    private func device(_ kinto: KintoServer, _ user: TestUser) async throws -> ShelfSandbox {
        let sandbox = try ShelfSandbox()
        let added = try await sandbox.run(
            ["account", "add", "reader", "--server", kinto.baseURL, "--user", user.name], environment: ["SHELF_PASSWORD": user.password])
        #expect(added.status == 0, "\(added)")
        return sandbox
    }

    @Test func enableThenJoinOnAnotherDeviceThenLock() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "e2e")
        let laptop = try await device(kinto, user)
        #expect(try await laptop.run("book", "add", "--title", "The Left Hand of Darkness", "--author", "Ursula K. Le Guin").status == 0)
        #expect(try await laptop.run("sync").status == 0)

        // Enable with data: the book is queued to go up sealed.
        let secret = try passphraseFile(laptop, "winter on Gethen")
        let enabled = try await laptop.run(["--json", "encryption", "enable"], environment: ["SHELF_PASSPHRASE_FILE": secret])
        #expect(enabled.status == 0, "\(enabled)")
        #expect(try enabled.json()["queued"] as? Int == 1)
        let before = try await laptop.run(["--json", "encryption", "status"])
        #expect(try before.json()["not_yet_encrypted"] as? Int == 1, "\(before)")
        #expect(try await laptop.run("sync").status == 0)
        let status = try await laptop.run(["--json", "encryption", "status"]).json()
        #expect(status["enabled"] as? Bool == true && status["holds_key"] as? Bool == true && status["not_yet_encrypted"] as? Int == 0)

        // Another device: added (exit 0), its sync leaves the records alone and says to join.
        let phone = try await device(kinto, user)
        let held = try await phone.run("sync")
        #expect(held.status == 1, "\(held)")
        #expect((held.stdout + held.stderr).contains("shelf encryption join"), "\(held)")
        #expect((try await phone.run(["--json", "--offline", "books"]).json()["books"] as? [Any])?.isEmpty == true)

        // A wrong passphrase: 77, nothing written.
        let wrong = try passphraseFile(phone, "summer on Gethen", name: "wrong")
        let refused = try await phone.run(["encryption", "join"], environment: ["SHELF_PASSPHRASE_FILE": wrong])
        #expect(refused.status == 77, "\(refused)")
        #expect(!refused.stderr.contains("summer"), "the passphrase reached an error: \(refused)")
        #expect(try await phone.run(["--json", "encryption", "status"]).json()["holds_key"] as? Bool == false)

        // The right one: the next sync reads the library.
        let right = try passphraseFile(phone, "winter on Gethen", name: "right")
        #expect(try await phone.run(["encryption", "join"], environment: ["SHELF_PASSPHRASE_FILE": right]).status == 0)
        let synced = try await phone.run("sync")
        #expect(synced.status == 0, "\(synced)")
        let books = try #require(try await phone.run(["--json", "--offline", "books"]).json()["books"] as? [[String: Any]])
        #expect(books.map { $0["title"] as? String } == ["The Left Hand of Darkness"])

        // Locked: the key is gone and syncs leave the records alone again.
        #expect(try await phone.run("encryption", "lock").status == 0)
        #expect(try await phone.run(["--json", "encryption", "status"]).json()["holds_key"] as? Bool == false)
        #expect(try await phone.run("sync").status == 1)
    }

    @Test func thePassphraseIsNeverAnArgumentAndWithoutAFileOrTerminalItIsAskedFor() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "e2e")
        let laptop = try await device(kinto, user)
        let given = try await laptop.run("encryption", "enable", "--passphrase", "hunter2")
        #expect(given.status == 64, "\(given)")
        let none = try await laptop.run("encryption", "enable")
        #expect(none.status == 78, "\(none)")
        #expect(none.stderr.contains("SHELF_PASSPHRASE_FILE"), "\(none)")
        // A passphrase file others can read is refused, not used.
        let loose = try passphraseFile(laptop, "open book")
        #expect(chmod(loose, 0o644) == 0)
        let refused = try await laptop.run(["encryption", "enable"], environment: ["SHELF_PASSPHRASE_FILE": loose])
        #expect(refused.status == 78, "\(refused)")
        #expect(try await laptop.run(["--json", "encryption", "status"]).json()["enabled"] as? Bool == false)
    }

    @Test func anAccountAddedEncryptedStartsSealedAndAnotherDeviceIsToldToJoin() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "e2e")
        let laptop = try ShelfSandbox()
        let secret = try passphraseFile(laptop, "tehanu of gont island")
        let added = try await laptop.run(
            ["account", "add", "reader", "--server", kinto.baseURL, "--user", user.name, "--encrypted"],
            environment: ["SHELF_PASSWORD": user.password, "SHELF_PASSPHRASE_FILE": secret])
        #expect(added.status == 0, "\(added)")
        #expect(added.stdout.contains("Encryption is on for account reader"), "\(added)")
        #expect(try await laptop.run("book", "add", "--title", "Tehanu", "--author", "Ursula K. Le Guin").status == 0)
        #expect(try await laptop.run("sync").status == 0)

        let phone = try ShelfSandbox()
        let joined = try await phone.run(
            ["account", "add", "reader", "--server", kinto.baseURL, "--user", user.name], environment: ["SHELF_PASSWORD": user.password])
        #expect(joined.status == 0, "\(joined)")
        #expect(joined.stderr.contains("shelf encryption join"), "\(joined)")
    }

    @Test func anImportOnAnEncryptedAccountNamesBooksByKeyedIdsAndAddsNothingTheSecondTime() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "e2e")
        let laptop = try await device(kinto, user)
        let secret = try passphraseFile(laptop, "earthsea archipelago")
        #expect(try await laptop.run(["encryption", "enable"], environment: ["SHELF_PASSPHRASE_FILE": secret]).status == 0)
        let csv = laptop.root.appendingPathComponent("goodreads.csv")
        try Data("Book Id,Title,Author,Exclusive Shelf\n4981,A Wizard of Earthsea,Ursula K. Le Guin,read\n".utf8).write(to: csv)

        let first = try await laptop.run(["--json", "import", csv.path])
        #expect(first.status == 0, "\(first)")
        let books = try #require(try await laptop.run(["--json", "--offline", "books"]).json()["books"] as? [[String: Any]])
        let id = try #require(books.first?["id"] as? String)
        #expect(!id.hasPrefix("gr-") && !id.contains("4981"), "\(id)")
        let second = try await laptop.run(["--json", "import", csv.path])
        let added = ((try second.json()["collections"] as? [String: Any])?["books"] as? [String: Any])?["added"] as? Int
        #expect(added == 0, "\(second)")
    }
}
