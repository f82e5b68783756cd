import Foundation
import Services
import Synchronization

// MARK: - KintoServer

/// A real Kinto server for integration tests: started on a free loopback port by
/// `Scripts/kinto-supervised.py` (which stops it when this process exits, even on a
/// crash) and stopped by `stop()` or at process exit.
///
/// By default the server runs Kinto's accounts plugin (`Fixtures/kinto/kinto.ini`):
/// passwords are checked, so a test signs up its user first (`newUser(prefix:)`).
/// `.basicAuth` (`kinto-basicauth.ini`) accepts any user:password, for the tests about
/// such servers. Tests isolate their data by using a fresh user per test: each account
/// has a private `default` bucket.
///
/// `start(postgresql: true, workers: N)` (and `sharedProduction()`) runs the shape Kinto's
/// docs advise for production: gunicorn with N worker processes over one PostgreSQL
/// database, the cache in PostgreSQL too, so any worker may answer any request.
public final class KintoServer: Sendable {
    /// How the server authenticates.
    public enum Auth: Sendable {
        /// The accounts plugin: sign up with `PUT /v1/accounts/<user>`, passwords checked.
        case accounts
        /// Plain Basic auth: every user:password is an account of its own.
        case basicAuth

        var ini: String {
            switch self {
            case .accounts: "Fixtures/kinto/kinto.ini"
            case .basicAuth: "Fixtures/kinto/kinto-basicauth.ini"
            }
        }
    }

    public let port: Int
    public let auth: Auth
    /// Gunicorn worker processes; 0 for Kinto's own one-process server (`kinto start`).
    public let workers: Int
    public var origin: String { "http://127.0.0.1:\(port)" }
    /// The API root, `http://127.0.0.1:<port>/v1`.
    public var baseURL: String { "\(origin)/v1" }

    /// The URL of the PostgreSQL cluster behind a `postgresql` server
    /// (`postgresql://postgres@127.0.0.1:<port>/kinto`), for tests that read Kinto's tables.
    public let postgresqlURL: String?

    private let process: ReadyProcess

    private init(auth: Auth, workers: Int, process: ReadyProcess, postgresqlURL: String? = nil) {
        self.port = process.port
        self.auth = auth
        self.workers = workers
        self.process = process
        self.postgresqlURL = postgresqlURL
    }

    public enum LaunchError: Error, CustomStringConvertible {
        case notInstalled(String)
        case didNotStart(String)
        public var description: String {
            switch self {
            case .notInstalled(let path): "Kinto not found at \(path): run 'make setup'"
            case .didNotStart(let why): "Kinto did not start: \(why)"
            }
        }
    }

    /// The Python of the project's `.venv`, where `make setup` installs Kinto.
    public static var python: URL {
        if let override = ProcessInfo.processInfo.environment["SHELF_VENV"] {
            return URL(fileURLWithPath: override).appendingPathComponent("bin/python")
        }
        return FixtureFiles.repositoryRoot.appendingPathComponent(".venv/bin/python")
    }

    /// Starts a new server.
    /// - Parameters:
    ///   - seedCatalog: create the shared, read-only `shop/products` catalog from `Fixtures/seed`.
    ///   - settings: Kinto settings as environment overrides, e.g. `["KINTO_BACKOFF": "10"]`.
    ///   - auth: the accounts plugin (default) or plain Basic auth.
    ///   - ini: another configuration file, relative to the repository root (or an absolute path).
    ///   - postgresql: run on a private PostgreSQL cluster made for this server (and
    ///     removed with it) instead of the ini's database; storage, permissions and cache
    ///     are PostgreSQL's whatever the ini says.
    ///   - workers: with `postgresql`, run Kinto under gunicorn with this many worker
    ///     processes (2 threads each); the server is ready once they all run. 0: one process.
    /// - Throws: `LaunchError.didNotStart` for `workers` without `postgresql` (Kinto's memory
    ///   backend lives in one process), or when the server does not start.
    public static func start(
        seedCatalog: Bool = true, settings: [String: String] = [:], auth: Auth = .accounts, ini: String? = nil,
        postgresql: Bool = false, workers: Int = 0
    ) throws -> KintoServer {
        guard workers == 0 || postgresql else {
            throw LaunchError.didNotStart("\(workers) workers need postgresql: true (the memory backend is per process)")
        }
        var arguments = [
            FixtureFiles.repositoryRoot.appendingPathComponent("Scripts/kinto-supervised.py").path,
            "--ini", ini.map { $0.hasPrefix("/") ? $0 : FixtureFiles.repositoryRoot.appendingPathComponent($0).path }
                ?? FixtureFiles.repositoryRoot.appendingPathComponent(auth.ini).path,
            "--fast-password-hashing",
        ]
        if seedCatalog { arguments.append("--seed-catalog") }
        let urlFile = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-kinto-pg-\(UUID().uuidString).url")
        if postgresql { arguments += ["--postgresql", "--postgresql-url-file", urlFile.path] }
        if workers > 0 { arguments += ["--workers", String(workers)] }
        let server = try launch(arguments, settings: settings, auth: auth, workers: workers)
        guard postgresql else { return server }
        defer { try? FileManager.default.removeItem(at: urlFile) }
        return KintoServer(
            auth: auth, workers: workers, process: server.process,
            postgresqlURL: (try? String(contentsOf: urlFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Starts a new server whose storage can be backed up and restored
    /// (`saveBackup()`, `restoreBackup()`), to play a server restored to an older state.
    /// Plain Basic auth, no shop catalog.
    public static func startWithBackups() throws -> KintoServer {
        let arguments = [
            FixtureFiles.repositoryRoot.appendingPathComponent("Scripts/kinto-with-backups.py").path,
            "--ini", FixtureFiles.repositoryRoot.appendingPathComponent(Auth.basicAuth.ini).path,
        ]
        return try launch(arguments, settings: [:], auth: .basicAuth)
    }

    private static func launch(_ arguments: [String], settings: [String: String], auth: Auth, workers: Int = 0) throws -> KintoServer {
        let environment = ProcessInfo.processInfo.environment.merging(settings) { $1 }
        return KintoServer(auth: auth, workers: workers, process: try ReadyProcess.launch("Kinto", arguments, environment: environment))
    }

    /// Stops the server and waits for it to exit. Safe to call twice.
    public func stop() {
        process.stop()
    }

    // MARK: Processes

    /// The process ids of the server's gunicorn workers, from `/proc`: the children of
    /// gunicorn's master, which is the supervisor script's child started with `--paste`.
    /// Empty for a one-process server, or once the server has stopped.
    public func workerProcessIDs() -> [Int32] {
        let masters = LinuxProcesses.children(of: process.pid).filter {
            LinuxProcesses.commandLine(of: $0).contains("--paste")
        }
        return masters.flatMap { LinuxProcesses.children(of: $0) }
    }

    // MARK: Accounts

    /// A fresh user, signed up when the server checks passwords.
    public func newUser(prefix: String = "user") async throws -> TestUser {
        let user = TestUser(prefix: prefix)
        try await signUp(user)
        return user
    }

    /// Signs `user` up (`PUT /v1/accounts/<user>`); nothing to do with Basic auth.
    public func signUp(_ user: TestUser) async throws {
        guard auth == .accounts else { return }
        let client = APIClient(configuration: .init(baseURL: baseURL, timeouts: Self.deviceTimeouts))
        _ = try await KintoAccountsService(client: client).signUp(user: user.name, password: user.password)
    }

    /// A client signed in as `user` for a test's own set-up and checks (seeding records,
    /// reading them back), not for the code under test. Its requests may take up to a
    /// minute, and may wait that long for the server's first byte: the shared server
    /// answers every suite running at once, and under a full parallel run a seeding batch
    /// went past the default 10 s, first of the whole request and then of the wait for an
    /// answer (the stall bound) — failing a test for nothing it tests.
    public func setUpClient(for user: TestUser) -> APIClient {
        APIClient(configuration: .init(
            baseURL: baseURL, credentials: .init(user: user.name, password: user.password),
            timeouts: Timeouts(connect: .seconds(5), request: .seconds(60), stall: .seconds(60))))
    }

    /// The limits of a test device's client against a shared server: a minute for a
    /// request, and half a minute for the first byte. Under a full parallel run on two
    /// cores, a shared server has kept an answer waiting more than the product's 10 s stall
    /// bound (two servers at once, in a clean-clone run), and a test whose subject is not a
    /// slow server then failed for nothing it tests. The stall bound itself is tested
    /// against servers that stall on purpose (`CurlTransportTests`, `HostileServer…Tests`).
    public static let deviceTimeouts = Timeouts(connect: .seconds(5), request: .seconds(60), stall: .seconds(30))

    // MARK: Shared server

    /// One server shared by every test in this process that needs only a plain Kinto
    /// (most do), started on first use and stopped at exit.
    public static func shared() throws -> KintoServer {
        try sharedServer.withLock { server in
            if let server { return server }
            let started = try start()
            server = started
            return started
        }
    }

    /// A plain Kinto as people run one out of the box, shared like `shared()`: Basic
    /// auth that accepts any password, and no shop catalog.
    public static func sharedPlain() throws -> KintoServer {
        try sharedPlainServer.withLock { server in
            if let server { return server }
            let started = try start(seedCatalog: false, auth: .basicAuth)
            server = started
            return started
        }
    }

    /// A plain Kinto (Basic auth, no shop catalog) that keeps every bucket's history
    /// (`kinto.plugins.history`), shared like `shared()`.
    public static func sharedWithHistory() throws -> KintoServer {
        try sharedHistoryServer.withLock { server in
            if let server { return server }
            let started = try start(
                seedCatalog: false, settings: ["KINTO_INCLUDES": "kinto.plugins.default_bucket kinto.plugins.history"], auth: .basicAuth)
            server = started
            return started
        }
    }

    /// The production shape, shared like `shared()`: the accounts plugin (`kinto.ini`) on a
    /// private PostgreSQL cluster, under gunicorn with 4 worker processes × 2 threads, fast
    /// password hashing, the shop catalog seeded. Started on first use (~8 s on 2 busy
    /// cores: a cluster is made and migrated), stopped with its cluster at exit.
    public static func sharedProduction() throws -> KintoServer {
        try sharedProductionServer.withLock { server in
            if let server { return server }
            let started = try start(postgresql: true, workers: productionWorkers)
            server = started
            return started
        }
    }

    /// `sharedProduction()`'s worker processes.
    public static let productionWorkers = 4

    private static let sharedServer = Mutex<KintoServer?>(nil)
    private static let sharedPlainServer = Mutex<KintoServer?>(nil)
    private static let sharedProductionServer = Mutex<KintoServer?>(nil)
    private static let sharedHistoryServer = Mutex<KintoServer?>(nil)
}

// MARK: - Processes in /proc

/// Reading Linux's process table, for the tests that check which processes a server runs.
enum LinuxProcesses {
    /// The pids whose parent is `parent` (field 4 of `/proc/<pid>/stat`).
    static func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { parentID(of: $0) == parent }.sorted()
    }

    /// The parent's pid; nil when the process is gone. The command name in parentheses
    /// may contain spaces and parentheses, so the fields are read after its last `)`.
    static func parentID(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// The process's arguments (`/proc/<pid>/cmdline`, NUL-separated); empty when it is gone.
    static func commandLine(of pid: Int32) -> [String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }
}

// MARK: - Test users

/// A fresh Kinto user per test: its `default` bucket starts empty.
public struct TestUser: Sendable {
    public let name: String
    public let password: String

    public init(prefix: String = "user") {
        self.name = "\(prefix)-\(UUID().uuidString.lowercased().prefix(12))"
        self.password = "pw-\(UUID().uuidString)"
    }
}
