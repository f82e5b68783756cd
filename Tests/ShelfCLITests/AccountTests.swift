import Foundation
import Testing

/// `shelf account …`: where passwords come from, and that they never leak.
@Suite("shelf: accounts and secrets")
struct AccountTests {
    let sandbox: ShelfSandbox
    let password = "pw-\(UUID().uuidString)"
    /// No server listens there: reads warn, `sync` fails for a while.
    let server: String

    init() throws {
        sandbox = try ShelfSandbox()
        server = try unreachableServer()
    }

    private var accountsFolder: URL { sandbox.configHome.appendingPathComponent("shelf/accounts") }

    private func mode(_ url: URL) async throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test func theFirstAccountBecomesCurrentAndItsFileIsPrivate() async throws {
        let add = try await sandbox.run("account", "add", "home", "--server", server + "/", "--user", "reader", "--no-verify",
                                  environment: ["SHELF_PASSWORD": password])
        #expect(add.status == 0, "\(add)")
        #expect(add.stdout == "Added account home (reader @ \(server)); it is the current account\n")
        let file = accountsFolder.appendingPathComponent("home.json")
        #expect(try await mode(file) == 0o600)
        #expect(try await mode(accountsFolder) == 0o700)

        let second = try await sandbox.run("account", "add", "work", "--server", server, "--user", "ana", "--no-verify",
                                     environment: ["SHELF_PASSWORD": password])
        #expect(second.stdout.contains("'shelf account use work' makes it the current one"))

        let list = try await sandbox.run("account", "list")
        #expect(list.stdout == """
               NAME  USER    SERVER
            *  home  reader  \(server)
               work  ana     \(server)

            """)
        #expect(try await sandbox.run("account", "use", "work").stdout == "Account work is now the current account\n")
        let json = try await sandbox.run("--json", "account", "list").json()
        let accounts = try #require(json["accounts"] as? [[String: Any]])
        #expect(accounts.map { $0["isCurrent"] as? Bool } == [false, true])
        #expect(Set(accounts[0].keys) == ["name", "user", "server", "isCurrent"])

        let remove = try await sandbox.run("account", "rm", "work")
        #expect(remove.status == 0)
        #expect(remove.stdout.hasPrefix("Removed account work; its local store is kept at "))
        #expect(try await sandbox.run("account", "add", "home", "--server", "http://x", "--user", "u",
                                environment: ["SHELF_PASSWORD": password]).status == 78)
    }

    @Test func thePasswordNeverAppearsInAnyOutput() async throws {
        var runs = [try await sandbox.run("-v", "account", "add", "home", "--server", server, "--user", "reader", "--no-verify",
                                    environment: ["SHELF_PASSWORD": password])]
        runs.append(try await sandbox.run("-v", "--json", "account", "list"))
        runs.append(try await sandbox.run("-v", "book", "add", "--title", "Dune", "--author", "Frank Herbert"))
        runs.append(try await sandbox.run("-v", "books"))
        runs.append(try await sandbox.run("-v", "status"))
        runs.append(try await sandbox.run("-v", "sync"))
        runs.append(try await sandbox.run("-v", "books", environment: ["SHELF_SERVER": server, "SHELF_USER": "env",
                                                                "SHELF_PASSWORD": password]))
        for run in runs {
            #expect(!run.stdout.contains(password) && !run.stderr.contains(password), "\(run)")
        }
        #expect(runs[3].status == 0, "\(runs[3])")
        #expect(runs[5].status == 75, "\(runs[5])")
    }

    @Test func aPasswordFileReadableByOthersIsRefused() async throws {
        let unsafe = try sandbox.file("password", contents: password + "\n", mode: 0o644)
        let run = try await sandbox.run("account", "add", "home", "--server", server, "--user", "reader",
                                  "--password-file", unsafe.path)
        #expect(run.status == 78, "\(run)")
        #expect(run.stderr == "Error: \(unsafe.path) is accessible by group or others (mode 644); run 'chmod 600 \(unsafe.path)'\n")
        #expect(!FileManager.default.fileExists(atPath: accountsFolder.appendingPathComponent("home.json").path))

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: unsafe.path)
        let safe = try await sandbox.run("account", "add", "home", "--server", server, "--user", "reader",
                                   "--password-file", "password", "--no-verify")
        #expect(safe.status == 0, "\(safe)")
        let stored = try String(contentsOf: accountsFolder.appendingPathComponent("home.json"), encoding: .utf8)
        #expect(stored.contains("\"password_file\" : \"\(unsafe.path)\""))
        #expect(!stored.contains(password))
    }

    @Test func withoutAPasswordOrATerminalTheAccountIsRefused() async throws {
        let run = try await sandbox.run("account", "add", "home", "--server", server, "--user", "reader")
        #expect(run.status == 78, "\(run)")
        #expect(run.stderr.hasPrefix("Error: no password: set SHELF_PASSWORD"))
        #expect(try await sandbox.run("account", "add", "home", "--server", "ftp://x", "--user", "u",
                                environment: ["SHELF_PASSWORD": password]).status == 78)
        #expect(try await sandbox.run("account", "add", "../etc", "--server", "http://x", "--user", "u",
                                environment: ["SHELF_PASSWORD": password]).status == 78)
    }

    @Test func anUnknownAccountIsAConfigurationError() async throws {
        let run = try await sandbox.run("--account", "nope", "books")
        #expect(run.status == 78, "\(run)")
        #expect(run.stderr == "Error: no account named 'nope'; no accounts are configured ('shelf account add')\n")
        #expect(try await sandbox.run("account", "use", "nope").status == 78)
        #expect(try await sandbox.run("account", "rm", "nope").status == 78)
    }
}
