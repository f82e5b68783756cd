import Foundation
import Storage
import Testing
import TestSupport

/// A throwaway XDG layout per test.
private struct TemporaryHome {
    let root: URL
    let paths: ShelfPaths
    var store: AccountStore { AccountStore(paths: paths) }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-accounts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        paths = ShelfPaths(environment: ["HOME": root.path, "XDG_CONFIG_HOME": root.appendingPathComponent("config").path])
    }

    func secret(_ text: String, mode: Int) throws -> String {
        let url = root.appendingPathComponent("secret-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        return url.path
    }

    func mode(of url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

@Suite("Accounts")
struct AccountStoreTests {
    @Test func pathsFollowXDGWithHomeFallbacks() {
        let paths = ShelfPaths(environment: ["HOME": "/home/ana", "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "relative/ignored"])
        #expect(paths.dataDirectory.path == "/data/shelf")
        #expect(paths.configDirectory.path == "/home/ana/.config/shelf")
        #expect(paths.database(.localOnly) == .file(URL(fileURLWithPath: "/data/shelf/local.sqlite")))
    }

    @Test(arguments: ["", "../etc", ".hidden", "a/b", "spaces here", String(repeating: "a", count: 129)])
    func unsafeNamesAreRejected(_ raw: String) {
        #expect {
            try AccountName.checked(raw)
        } throws: { error in
            guard case AccountConfigError.invalidName(raw, _) = error else { return false }
            return true
        }
    }

    @Test func serverURLsAreNormalisedAndValidated() throws {
        #expect(try AccountConfig.normalizedServer("http://127.0.0.1:8888") == "http://127.0.0.1:8888/v1")
        #expect(try AccountConfig.normalizedServer("https://kinto.example/v1/") == "https://kinto.example/v1")
        #expect(throws: AccountConfigError.invalidServer("ftp://x")) { try AccountConfig.normalizedServer("ftp://x") }
        #expect(throws: AccountConfigError.invalidServer("not a url")) { try AccountConfig.normalizedServer("not a url") }
    }

    @Test func addWritesPrivateFilesAndResolvesTheStoredPassword() throws {
        let home = try TemporaryHome()
        let name = try AccountName.checked("work")
        try home.store.add(name, try AccountConfig(server: "http://127.0.0.1:9/", user: "ana", password: "s3cret"))
        #expect(try home.mode(of: home.paths.accountFile(name)) == 0o600)
        #expect(try home.mode(of: home.paths.accountsDirectory) == 0o700)
        #expect(home.store.list() == [name])
        let account = try home.store.resolve(name)
        #expect(try account.credentials() == Credentials(user: "ana", password: "s3cret"))
        #expect(account.server == "http://127.0.0.1:9/v1")
        #expect(throws: AccountConfigError.alreadyExists("work")) {
            try home.store.add(name, try AccountConfig(server: "http://x", user: "b", password: "p"))
        }
    }

    @Test func aLooseAccountFileIsRefused() throws {
        let home = try TemporaryHome()
        let name = try AccountName.checked("work")
        try home.store.add(name, try AccountConfig(server: "http://h", user: "ana", password: "pw"))
        let path = home.paths.accountFile(name).path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        // It still names the store (local work goes on), but nothing in it goes to a server.
        let account = try home.store.resolve(name)
        let problem = PasswordProblem(origin: .accountFile(name), path: path, kind: .notPrivate(mode: "644"), file: .account)
        #expect(throws: AccountConfigError.passwordUnavailable(problem)) { try account.credentials() }
        #expect("\(problem)" == "the account file \(path) is accessible by group or others (mode 644), so Shelf trusts neither its password nor its server; run 'chmod 600 \(path)'")
        #expect(throws: AccountConfigError.unsafePermissions(path: path, mode: "644")) { try home.store.load(name) }
    }

    @Test func passwordFilesMustBePrivateAndNonEmpty() throws {
        let home = try TemporaryHome()
        let good = try home.secret("from-file\n", mode: 0o600)
        #expect(try SecretFile.read(good) == "from-file")
        let loose = try home.secret("x", mode: 0o640)
        #expect(throws: AccountConfigError.unsafePermissions(path: loose, mode: "640")) { try SecretFile.read(loose) }
        let empty = try home.secret("\n", mode: 0o600)
        #expect(throws: AccountConfigError.emptyPassword(source: empty)) { try SecretFile.read(empty) }
        #expect(throws: AccountConfigError.unreadable(path: "/nonexistent/pw", reason: "no such file")) {
            try SecretFile.read("/nonexistent/pw")
        }
    }

    @Test func currentAccountFollowsUseAndRemove() throws {
        let home = try TemporaryHome()
        let name = try AccountName.checked("home")
        #expect(home.store.currentAccount() == nil)
        #expect(throws: AccountConfigError.notFound("home", known: [])) { try home.store.setCurrentAccount(name) }
        try home.store.add(name, try AccountConfig(server: "http://h", user: "u", password: "p"))
        try home.store.setCurrentAccount(name)
        #expect(home.store.currentAccount() == name)
        try home.store.remove(name)
        #expect(home.store.currentAccount() == nil)
        #expect(home.store.list().isEmpty)
    }

    @Test func descriptionsNeverShowThePassword() throws {
        let credentials = Credentials(user: "ana", password: "hunter2")
        let account = ResolvedAccount(name: try AccountName.checked("a"), server: "http://h/v1", credentials: credentials, source: .environment)
        for text in [credentials.description, credentials.debugDescription, account.description, String(reflecting: credentials)] {
            #expect(!text.contains("hunter2"))
        }
        let config = try AccountConfig(server: "http://h", user: "ana", password: "hunter2")
        #expect(!config.description.contains("hunter2"))
    }
}

@Suite("Account resolution")
struct AccountResolverTests {
    @Test func withNothingConfiguredTheStoreIsLocalOnly() throws {
        let home = try TemporaryHome()
        #expect(try AccountResolver.resolve(flag: nil, environment: [:], store: home.store) == .localOnly)
    }

    @Test func environmentBeatsTheCurrentAccountAndTheFlagBeatsBoth() throws {
        let home = try TemporaryHome()
        try home.store.add(try AccountName.checked("filed"), try AccountConfig(server: "http://file-host", user: "f", password: "pf"))
        try home.store.setCurrentAccount(try AccountName.checked("filed"))
        let environment = ["SHELF_SERVER": "http://env-host:8888", "SHELF_USER": "e", "SHELF_PASSWORD": "pe"]

        let fromEnv = try AccountResolver.resolve(flag: nil, environment: environment, store: home.store)
        #expect(fromEnv.name.rawValue == "default")
        guard case .account(let envAccount) = fromEnv else { Issue.record("expected an account"); return }
        #expect(envAccount.server == "http://env-host:8888/v1" && envAccount.source == .environment)

        let fromFlag = try AccountResolver.resolve(flag: "filed", environment: environment, store: home.store)
        guard case .account(let flagged) = fromFlag else { Issue.record("expected an account"); return }
        #expect(flagged.user == "f" && flagged.source == .accountFile)

        let current = try AccountResolver.resolve(flag: nil, environment: [:], store: home.store)
        #expect(current.name.rawValue == "filed")
    }

    @Test func passwordFileFromTheEnvironmentIsCheckedWhenItIsRead() throws {
        let home = try TemporaryHome()
        let loose = try home.secret("pw", mode: 0o644)
        let environment = ["SHELF_SERVER": "http://h", "SHELF_USER": "u", "SHELF_PASSWORD_FILE": loose]
        guard case .account(let account) = try AccountResolver.resolve(flag: nil, environment: environment, store: home.store) else {
            Issue.record("expected an account")
            return
        }
        let problem = PasswordProblem(origin: .environment, path: loose, kind: .notPrivate(mode: "644"))
        #expect(throws: AccountConfigError.passwordUnavailable(problem)) { try account.credentials() }
        #expect("\(problem)".contains("chmod 600 \(loose)"), "\(problem)")
    }

    @Test func anEmptyPasswordInTheEnvironmentIsRefusedWhenItIsRead() throws {
        let home = try TemporaryHome()
        let environment = ["SHELF_SERVER": "http://h", "SHELF_USER": "u", "SHELF_PASSWORD": ""]
        guard case .account(let account) = try AccountResolver.resolve(flag: nil, environment: environment, store: home.store) else {
            Issue.record("expected an account")
            return
        }
        #expect(throws: AccountConfigError.passwordUnavailable(PasswordProblem(origin: .environment, path: nil, kind: .empty))) {
            try account.credentials()
        }
    }

    @Test func incompleteEnvironmentNamesWhatIsMissing() throws {
        let home = try TemporaryHome()
        #expect(throws: AccountConfigError.incompleteEnvironment(missing: ["SHELF_USER", "SHELF_PASSWORD or SHELF_PASSWORD_FILE"])) {
            try AccountResolver.resolve(flag: nil, environment: ["SHELF_SERVER": "http://h"], store: home.store)
        }
    }

    @Test func unknownFlagAccountListsTheKnownOnes() throws {
        let home = try TemporaryHome()
        try home.store.add(try AccountName.checked("a1"), try AccountConfig(server: "http://h", user: "u", password: "p"))
        #expect(throws: AccountConfigError.notFound("zz", known: ["a1"])) {
            try AccountResolver.resolve(flag: "zz", environment: [:], store: home.store)
        }
    }
}

/// An account whose password file went missing, changed mode or cannot be read still
/// resolves (local work needs no password); reading the password says which it is.
@Suite("Account passwords read when needed")
struct PasswordSourceTests {
    private func account(_ home: TemporaryHome, passwordFile: String) throws -> ResolvedAccount {
        let name = try AccountName.checked("home")
        try home.store.add(name, try AccountConfig(server: "http://h", user: "ana", passwordFile: passwordFile))
        return try home.store.resolve(name)
    }

    @Test func aMissingFileIsSaidToBeMissingNotInsecure() throws {
        let home = try TemporaryHome()
        let path = home.root.appendingPathComponent("gone/pw").path
        let account = try account(home, passwordFile: path)
        #expect(account.password == .file(path: path, origin: .accountFile(try AccountName.checked("home"))))
        do {
            _ = try account.credentials()
            Issue.record("a missing file was read")
        } catch {
            guard case .passwordUnavailable(let problem) = error else { Issue.record("\(error)"); return }
            #expect(problem.kind == .missing)
            let text = "\(error)"
            #expect(text.contains("\(path) is missing"), "\(text)")
            #expect(text.contains("shelf account password home"), "\(text)")
            #expect(!text.contains("group or others") && !text.contains("chmod"), "\(text)")
        }
    }

    @Test func aLooseFileIsSaidToBeLooseWithTheCommandThatMendsIt() throws {
        let home = try TemporaryHome()
        let path = try home.secret("pw", mode: 0o644)
        let account = try account(home, passwordFile: path)
        #expect(throws: AccountConfigError.passwordUnavailable(
            PasswordProblem(origin: .accountFile(try AccountName.checked("home")), path: path, kind: .notPrivate(mode: "644")))) {
            try account.credentials()
        }
        #expect("\(PasswordProblem(origin: .environment, path: path, kind: .notPrivate(mode: "644")))".contains("chmod 600"))
    }

    @Test func aFolderAndAnEmptyFileAreNamedAsSuch() throws {
        let home = try TemporaryHome()
        let folder = home.root.path
        let origin = PasswordSource.Origin.accountFile(try AccountName.checked("home"))
        #expect(throws: AccountConfigError.passwordUnavailable(PasswordProblem(origin: origin, path: folder, kind: .notAFile))) {
            try PasswordSource.file(path: folder, origin: origin).read()
        }
        let empty = try home.secret("\n", mode: 0o600)
        #expect(throws: AccountConfigError.passwordUnavailable(PasswordProblem(origin: origin, path: empty, kind: .empty))) {
            try PasswordSource.file(path: empty, origin: origin).read()
        }
    }

    @Test func aGoodFileIsReadEachTimeTheCredentialsAreAskedFor() throws {
        let home = try TemporaryHome()
        let path = try home.secret("first\n", mode: 0o600)
        let account = try account(home, passwordFile: path)
        #expect(try account.credentials() == Credentials(user: "ana", password: "first"))
        try Data("second".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try account.credentials().password == "second")
    }

    @Test func noProblemEverShowsThePassword() throws {
        let home = try TemporaryHome()
        let path = try home.secret("hunter2", mode: 0o644)
        let account = try account(home, passwordFile: path)
        #expect(!"\(account)".contains("hunter2") && !"\(account.password)".contains("hunter2"))
        let given = PasswordSource.given("hunter2", origin: .environment)
        var dumped = ""
        dump(ResolvedAccount(name: account.name, server: "http://h/v1", user: "ana", password: given, source: .environment), to: &dumped)
        #expect(!dumped.contains("hunter2") && !String(reflecting: given).contains("hunter2"), "\(dumped)")
        #expect(throws: AccountConfigError.self) { try account.credentials() }
        do { _ = try account.credentials() } catch { #expect(!"\(error)".contains("hunter2")) }
    }
}
