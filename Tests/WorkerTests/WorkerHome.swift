import ArgumentParsing
import Domain
import Foundation
import ShelfCommands
import Storage
import TestSupport
import WorkerCommands

// MARK: - WorkerHome

/// A private XDG home for one worker "machine", with the environment that points the
/// worker at a Kinto user, and access to the account's store as the worker leaves it.
struct WorkerHome {
    let root: URL
    var environment: [String: String]

    init(server: String, user: TestUser, extra: [String: String] = [:]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-worker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        environment = [
            "HOME": root.path, "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_DATA_HOME": root.appendingPathComponent("data").path, "PATH": "/usr/bin:/bin",
            "SHELF_SERVER": server, "SHELF_USER": user.name, "SHELF_PASSWORD": user.password,
            // NB: half a minute for a shared test server's first byte (10 s by default): under
            // a full parallel run on two cores one kept an idle run's batch waiting past 10 s,
            // and the retry made two requests of a run the test counts as one. Tests of a
            // stalled server bound the run with `--budget`, or set their own (`extra`).
            "SHELF_STALL_SECONDS": "30",
        ].merging(extra) { $1 }
    }

    var paths: ShelfPaths { ShelfPaths(environment: environment) }
    var reportPath: String { root.appendingPathComponent("report.json").path }

    /// The store of the environment's account (`default`).
    func store() throws -> ShelfStore {
        try ShelfStore(location: paths.database(try AccountName("default")))
    }

    /// Runs `shelf-sync arguments…` in-process (`WorkerProgram.run`), its streams captured.
    func run(_ arguments: [String] = []) async throws -> ProcessResult {
        let captured = CapturedConsole()
        let status = await WorkerProgram.run(context(arguments, captured))
        return ProcessResult(status: status.rawValue, stdout: captured.standardOutput, stderr: captured.standardError)
    }

    /// Runs `shelf arguments…` in-process on this machine (`ShelfProgram.run`).
    func runShelf(_ arguments: [String]) async throws -> ProcessResult {
        let captured = CapturedConsole()
        let status = await ShelfProgram.run(context(arguments, captured))
        return ProcessResult(status: status.rawValue, stdout: captured.standardOutput, stderr: captured.standardError)
    }

    /// Runs the built `shelf-sync` as a process: the worker's cron, systemd and signal paths.
    func runBinary(_ arguments: [String] = []) throws -> ProcessResult {
        try ProcessRunner.run(BuiltProduct.url("shelf-sync"), arguments, environment: environment)
    }

    private func context(_ arguments: [String], _ captured: CapturedConsole) -> ProgramContext {
        ProgramContext(arguments: arguments, environment: environment, workingDirectory: root.path, console: captured.console)
    }

    func start(_ arguments: [String] = []) throws -> ProcessRunner.Running {
        try ProcessRunner.start(BuiltProduct.url("shelf-sync"), arguments, environment: environment)
    }

    /// The `--report` file as JSON.
    func report() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: reportPath))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    func accountReport() throws -> [String: Any] {
        ((try report()["accounts"] as? [[String: Any]]) ?? []).first ?? [:]
    }

    func collectionReport(_ name: String) throws -> [String: Any] {
        ((try accountReport()["collections"] as? [String: Any])?[name] as? [String: Any]) ?? [:]
    }
}
