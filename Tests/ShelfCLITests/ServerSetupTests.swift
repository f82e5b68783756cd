import Foundation
import Testing
import TestSupport

/// `shelf` against the servers people run: a plain Kinto without the shop catalog, the
/// accounts plugin (sign-up, verified add, wrong password), and HTTPS with a private CA.
@Suite("shelf: servers people run")
struct ServerSetupTests {
    private func add(
        _ sandbox: ShelfSandbox, server: String, user: TestUser, password: String? = nil, _ extra: String...
    ) async throws -> ShelfRun {
        try await sandbox.run(["account", "add", "reader", "--server", server, "--user", user.name] + extra,
                        environment: ["SHELF_PASSWORD": password ?? user.password])
    }

    private func status(_ sandbox: ShelfSandbox) async throws -> [String: Any] {
        try #require(try await sandbox.run("--json", "status").json()["sync"] as? [String: Any])
    }

    // MARK: A plain Kinto without the catalog

    @Test func aPlainKintoWithoutTheCatalogSyncsTheReadersOwnData() async throws {
        let kinto = try KintoServer.sharedPlain()
        let user = TestUser(prefix: "plain")
        let laptop = try ShelfSandbox()

        // GIVEN an account on a server that accepts any password: added, with a warning
        let added = try await add(laptop, server: kinto.baseURL, user: user)
        #expect(added.status == 0, "\(added)")
        #expect(added.stderr.contains("Warning: \(kinto.baseURL) accepts any password"), "\(added)")
        #expect(added.stderr.contains("a mistyped password silently means another, empty account"))

        // WHEN a book and a task are synced
        let book = try await laptop.run("--json", "book", "add", "--title", "Kindred", "--author", "Octavia E. Butler")
        let bookID = try #require(try book.json()["id"] as? String)
        #expect(try await laptop.run("task", "add", "Read chapter 1").status == 0)
        let sync = try await laptop.run("--progress", "sync")

        // THEN they are pushed, the run exits 0 and says only that the catalog is missing
        #expect(sync.status == 0, "\(sync)")
        #expect(sync.stderr.contains("books: pushed 1 change"), "\(sync)")
        #expect(sync.stderr.contains("tasks: pushed 1 change"), "\(sync)")
        #expect(sync.stdout.contains("Synced account reader, but the server offers no shop catalog"), "\(sync)")
        let json = try await laptop.run("--json", "sync").json()
        #expect(json["outcome"] as? String == "synced")
        let state = try await status(laptop)
        #expect(state["pendingChanges"] as? Int == 0)
        #expect(state["lastSuccess"] is String, "\(state)")
        let lastError = try #require(state["lastError"] as? String)
        #expect(lastError.hasPrefix("products: unavailable: the server offers no shop catalog"), "\(lastError)")
        #expect(!lastError.contains("books") && !lastError.contains("tasks"), "\(lastError)")

        // AND the catalog's screens say why they are empty
        let products = try await laptop.run("products")
        #expect(products.stderr.contains("the server offers no shop catalog"), "\(products)")

        // AND another device of the reader gets the book (a two-device round trip)
        let phone = try ShelfSandbox()
        #expect(try await add(phone, server: kinto.baseURL, user: user).status == 0)
        let pulled = try await phone.run("sync")
        #expect(pulled.status == 0, "\(pulled)")
        let books = try #require(try await phone.run("--json", "books").json()["books"] as? [[String: Any]])
        #expect(books.map { $0["id"] as? String } == [bookID])
    }

    // MARK: The accounts plugin

    @Test func signUpVerifiedAddAndAWrongPassword() async throws {
        let kinto = try KintoServer.shared()
        let user = TestUser(prefix: "signup")

        // GIVEN a reader who signs up from Shelf
        let laptop = try ShelfSandbox()
        let created = try await add(laptop, server: kinto.baseURL, user: user, "--create")
        #expect(created.status == 0, "\(created)")
        #expect(!created.stderr.contains("Warning"), "\(created)")
        #expect(try await laptop.run("book", "add", "--title", "Piranesi", "--author", "Susanna Clarke").status == 0)
        #expect(try await laptop.run("sync").status == 0)

        // WHEN another device adds the account with a mistyped password
        let phone = try ShelfSandbox()
        let typo = user.password + "-typo"
        let refused = try await add(phone, server: kinto.baseURL, user: user, password: typo)

        // THEN it is refused with 77, says so, leaks nothing and saves nothing
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.stderr == """
            Error: \(kinto.baseURL) did not accept the password for user '\(user.name)'; the account was not added. \
            If '\(user.name)' has no account on that server yet, add --create to sign up

            """)
        for secret in [typo, user.password] {
            #expect(!refused.stdout.contains(secret) && !refused.stderr.contains(secret))
        }
        #expect(try await phone.run("account", "list").stdout.contains("No accounts"), "nothing saved")

        // AND with the right password the account is verified and the book arrives
        let verified = try await phone.run(["-v", "account", "add", "reader", "--server", kinto.baseURL, "--user", user.name],
                                     environment: ["SHELF_PASSWORD": user.password])
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.stderr.contains("user id account:\(user.name)"), "\(verified)")
        #expect(try await phone.run("sync").status == 0)
        let books = try #require(try await phone.run("--json", "books").json()["books"] as? [[String: Any]])
        #expect(books.map { $0["title"] as? String } == ["Piranesi"])

        // AND signing up again keeps the existing account
        let again = try await add(try ShelfSandbox(), server: kinto.baseURL, user: user, "--create")
        #expect(again.status == 0, "\(again)")
        let taken = try await add(try ShelfSandbox(), server: kinto.baseURL, user: user, password: typo, "--create")
        #expect(taken.status == 77, "\(taken)")
    }

    @Test func aRunningSyncWithARefusedPasswordExits77() async throws {
        let kinto = try KintoServer.shared()
        let user = try await kinto.newUser(prefix: "refused")
        let sandbox = try ShelfSandbox()
        #expect(try await add(sandbox, server: kinto.baseURL, user: user).status == 0)
        let typo = "not-\(user.password)"
        let run = try await sandbox.run("sync", environment: ["SHELF_SERVER": kinto.baseURL, "SHELF_USER": user.name, "SHELF_PASSWORD": typo])
        #expect(run.status == 77, "\(run)")
        #expect(!run.stdout.contains(typo) && !run.stderr.contains(typo))
    }

    @Test func anUnreachableServerIsRefusedUnlessNotVerified() async throws {
        let sandbox = try ShelfSandbox()
        let server = try unreachableServer()
        let user = TestUser(prefix: "away")
        let refused = try await add(sandbox, server: server, user: user)
        #expect(refused.status == 75, "\(refused)")
        #expect(refused.stderr.hasPrefix("Error: could not reach \(server)"), "\(refused)")
        #expect(refused.stderr.contains("--no-verify"))
        #expect(try await add(sandbox, server: server, user: user, "--no-verify").status == 0)
    }

    @Test func plainHTTPToAnotherMachineWarnsThatThePasswordTravelsInClear() async throws {
        let sandbox = try ShelfSandbox()
        // NB: --no-verify: nothing is sent; the address is a documentation one (RFC 5737).
        let run = try await add(sandbox, server: "http://192.0.2.10:8888", user: TestUser(prefix: "lan"), "--no-verify")
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("is plain http:// to another machine: the password travels in clear; use https://"), "\(run)")
        let local = try await add(try ShelfSandbox(), server: "http://localhost:9/v1", user: TestUser(prefix: "lan"), "--no-verify")
        #expect(!local.stderr.contains("in clear"), "\(local)")
    }

    @Test func aServerWithoutTheDefaultBucketIsRefusedClearly() async throws {
        // The accounts plugin alone: no `default` bucket for readers' data.
        let kinto = try KintoServer.start(seedCatalog: false, settings: ["KINTO_INCLUDES": "kinto.plugins.accounts"])
        defer { kinto.stop() }
        let sandbox = try ShelfSandbox()
        let user = TestUser(prefix: "nobucket")
        let run = try await add(sandbox, server: kinto.baseURL, user: user, "--create")
        #expect(run.status == 78, "\(run)")
        #expect(run.stderr.contains("lacks the default_bucket plugin (kinto.plugins.default_bucket)"), "\(run)")
        #expect(try await sandbox.run("account", "list").stdout.contains("No accounts"))

        // An account from the environment learns it at its first sync, and says so the same way.
        let sync = try await sandbox.run("sync", environment: ["SHELF_SERVER": kinto.baseURL, "SHELF_USER": user.name, "SHELF_PASSWORD": user.password])
        #expect(sync.status == 78, "\(sync)")
        #expect(sync.stdout.contains("lacks the default_bucket plugin") || sync.stderr.contains("lacks the default_bucket plugin"), "\(sync)")
    }

    // MARK: TLS

    @Test func httpsWithAPrivateCAWorksAndAnythingElseIsRefused() async throws {
        let kinto = try KintoServer.shared()
        let front = try TLSFront.start(upstreamPort: kinto.port)
        defer { front.stop() }
        let user = TestUser(prefix: "tls")

        // A certificate from an unknown CA: refused, whatever the system trusts.
        let unknown = try await add(try ShelfSandbox(), server: front.baseURL, user: user, "--create")
        #expect(unknown.status == 78, "\(unknown)")
        #expect(unknown.stderr.contains("the TLS certificate of \(front.baseURL) did not verify"), "\(unknown)")
        let wrongCA = try await add(try ShelfSandbox(), server: front.baseURL, user: user, "--create", "--ca-file", front.otherCAFile)
        #expect(wrongCA.status == 78, "\(wrongCA)")
        #expect(wrongCA.stderr.contains("did not verify"))

        // The right CA: sign-up, verification and a sync round trip over https.
        let laptop = try ShelfSandbox()
        let added = try await add(laptop, server: front.baseURL, user: user, "--create", "--ca-file", front.caFile)
        #expect(added.status == 0, "\(added)")
        #expect(try await laptop.run("book", "add", "--title", "The Dispossessed", "--author", "Ursula K. Le Guin").status == 0)
        let sync = try await laptop.run("--progress", "sync")
        #expect(sync.status == 0, "\(sync)")
        #expect(sync.stderr.contains("books: pushed 1 change"), "\(sync)")
        let phone = try ShelfSandbox()
        phone.environment["SHELF_CA_FILE"] = front.caFile
        #expect(try await add(phone, server: front.baseURL, user: user).status == 0)
        #expect(try await phone.run("sync").status == 0)
        let books = try #require(try await phone.run("--json", "books").json()["books"] as? [[String: Any]])
        #expect(books.map { $0["title"] as? String } == ["The Dispossessed"])

        // A sync that trusts another CA is refused too, as configuration (78), not "try later".
        let mistrusted = try await phone.run("sync", environment: ["SHELF_CA_FILE": front.otherCAFile])
        #expect(mistrusted.status == 78, "\(mistrusted)")
        #expect(mistrusted.stderr.contains("the server's certificate did not verify"), "\(mistrusted)")
    }

    @Test func aCertificateForAnotherHostIsRefused() async throws {
        let kinto = try KintoServer.shared()
        let front = try TLSFront.start(upstreamPort: kinto.port, subjectAltNames: "DNS:kinto.elsewhere.invalid")
        defer { front.stop() }
        let run = try await add(try ShelfSandbox(), server: front.baseURL, user: TestUser(prefix: "tls"), "--create", "--ca-file", front.caFile)
        #expect(run.status == 78, "\(run)")
        #expect(run.stderr.contains("did not verify"), "\(run)")
    }
}
