import ArgumentParsing
import Foundation
import Storage
import Sync

// MARK: - ShelfSyncWorker

/// Wires the worker: parse, resolve accounts, run each under its lock, log, report,
/// exit with the worst status.
struct ShelfSyncWorker {
    let arguments: [String]
    let environment: [String: String]

    private var parser: CommandLineParser { CommandLineParser(root: WorkerCommand.spec) }
    private var help: HelpRenderer { HelpRenderer(parser: parser, rootEpilogue: WorkerCommand.epilogue) }

    func run() async -> Int32 {
        let invocation: Invocation
        let every: Duration?
        let pageSize: Int?
        do throws(ParseError) {
            invocation = try parser.parse(arguments)
            every = try invocation.option("every", as: "a duration such as 90s, 5m or 1h", DurationParsing.parse)
            pageSize = try invocation.option("page-size", as: "a whole number from 1 to 10000") { text in
                Int(text).flatMap { (1...10_000).contains($0) ? $0 : nil }
            }
            if invocation.option("account") != nil && invocation.flag("all-accounts") {
                throw ParseError.invalid("Use either '--account' or '--all-accounts', not both")
            }
        } catch {
            FileHandle.standardError.write(Data(help.usageError(error, path: ["shelf-sync"]).utf8))
            return ExitCode.usage.rawValue
        }
        if invocation.flag("version") {
            print("shelf-sync \(WorkerCommand.version)")
            return 0
        }
        if invocation.wantsHelp {
            print(help.help(for: invocation.path), terminator: "")
            return 0
        }

        let log = EventLog(format: invocation.option("log-format") == "json" ? .json : .text)
        let options = SyncOptions(
            policy: invocation.option("policy").flatMap(ConflictPolicy.init(rawValue:)) ?? .manual,
            pageSize: pageSize ?? SyncOptions().pageSize)
        guard let every else {
            return await runOnce(invocation, options: options, log: log)
        }
        while true {
            _ = await runOnce(invocation, options: options, log: log)
            do { try await Task.sleep(for: every) } catch { return 0 }
        }
    }

    // MARK: One round

    private func runOnce(_ invocation: Invocation, options: SyncOptions, log: EventLog) async -> Int32 {
        let started = Date()
        let paths = ShelfPaths(environment: environment)
        var reports: [RunReport] = []
        var configurationError: String?

        do {
            let accounts = try accounts(invocation, paths: paths)
            reports = await sync(accounts, paths: paths, options: options, log: log)
        } catch {
            configurationError = "\(error)"
            log.note("configuration error: \(error)", account: invocation.option("account"), level: "error", event: "configuration_error")
        }

        let worst = reports.map(\.outcome).max { $0.severity < $1.severity }
        let exitCode = configurationError != nil ? RunOutcome.configurationError.exitStatus : (worst?.exitStatus ?? 0)
        if let path = invocation.option("report") {
            let report = WorkerReport(
                startedAt: started, finishedAt: Date(), exitCode: exitCode,
                exitReason: configurationError != nil ? RunOutcome.configurationError.rawValue : (worst ?? .synced).rawValue,
                message: configurationError ?? reports.map { "\($0.account): \($0.message)" }.joined(separator: "; "),
                accounts: reports)
            do {
                try report.write(to: path)
            } catch {
                log.note("could not write the report: \(error)", account: nil, level: "error", event: "report_failed")
                return max(exitCode, ExitCode.ioError.rawValue)
            }
        }
        return exitCode
    }

    private func accounts(_ invocation: Invocation, paths: ShelfPaths) throws -> [ResolvedAccount] {
        let store = AccountStore(paths: paths)
        if invocation.flag("all-accounts") {
            let names = store.list()
            guard !names.isEmpty else {
                throw AccountConfigError.notFound("(any)", known: [])
            }
            let caFile = environment["SHELF_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
            return try names.map { try store.resolve($0).trusting(caFile: caFile) }
        }
        switch try AccountResolver.resolve(flag: invocation.option("account"), environment: environment, store: store) {
        case .account(let account):
            return [account]
        case .localOnly:
            throw WorkerConfigurationError.noAccount
        }
    }

    /// Syncs the accounts, at most two at a time.
    private func sync(_ accounts: [ResolvedAccount], paths: ShelfPaths, options: SyncOptions, log: EventLog) async -> [RunReport] {
        await withTaskGroup(of: (Int, RunReport).self) { group in
            var results: [(Int, RunReport)] = []
            var next = 0
            func startNext() {
                guard next < accounts.count else { return }
                let index = next
                let account = accounts[index]
                next += 1
                group.addTask { (index, await Self.sync(account, paths: paths, options: options, log: log)) }
            }
            startNext()
            startNext()
            for await result in group {
                results.append(result)
                startNext()
            }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    private static func sync(_ account: ResolvedAccount, paths: ShelfPaths, options: SyncOptions, log: EventLog) async -> RunReport {
        let name = account.name.rawValue
        let setup: AccountSync
        do {
            setup = try AccountSync(account: account, paths: paths, options: options)
        } catch {
            log.note("cannot open the local store: \(error)", account: name, level: "error", event: "store_failed")
            return RunReport(account: name, outcome: .localStoreFailure, message: "\(error)", startedAt: Date())
        }
        let report = await setup.runLocked { event in log.log(event, account: name) }
        if report.outcome == .alreadyRunning {
            log.note(report.message, account: name, event: "already_running")
        }
        return report
    }
}

// MARK: - Configuration errors

enum WorkerConfigurationError: Error, CustomStringConvertible {
    case noAccount

    var description: String {
        "no account configured: set SHELF_SERVER, SHELF_USER and SHELF_PASSWORD (or SHELF_PASSWORD_FILE), or add one with 'shelf account add'"
    }
}

// MARK: - Severity

extension RunOutcome {
    /// Orders outcomes so the worst one across accounts decides the exit status.
    var severity: Int {
        switch self {
        case .synced, .alreadyRunning: 0
        case .needsAttention: 1
        case .backoff: 2
        case .temporaryFailure: 3
        case .localStoreFailure: 4
        case .authenticationFailed: 5
        case .configurationError: 6
        }
    }
}
