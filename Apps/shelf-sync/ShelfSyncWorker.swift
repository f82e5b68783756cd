import ArgumentParsing
import Foundation
import Storage
import Sync

// MARK: - ShelfSyncWorker

/// Wires the worker: parse, pick the log and the accounts, run rounds (Sync's
/// `WorkerRound`), write the report, exit with the worst status.
struct ShelfSyncWorker {
    let arguments: [String]
    let environment: [String: String]

    private var parser: CommandLineParser { CommandLineParser(root: WorkerCommand.spec) }
    private var help: HelpRenderer { HelpRenderer(parser: parser, rootEpilogue: WorkerCommand.epilogue) }

    /// What the command line asked for, checked before anything runs.
    private struct Settings {
        var invocation: Invocation
        var every: Duration?
        var options: SyncOptions
        var level: LogLevel
        var format: WorkerLog.Format
    }

    func run() async -> Int32 {
        let settings: Settings
        do throws(ParseError) {
            guard let parsed = try parse() else { return 0 }
            settings = parsed
        } catch {
            FileHandle.standardError.write(Data(help.usageError(error, path: ["shelf-sync"]).utf8))
            return WorkerExitStatus.usage
        }

        let sink: @Sendable (String) -> Void
        var journal = false
        if let path = settings.invocation.option("log-file") {
            do {
                let file = try LogFile(path: path)
                sink = { file.write($0) }
            } catch {
                FileHandle.standardError.write(Data("shelf-sync: cannot write the log: \(error)\n".utf8))
                return RunOutcome.localStoreFailure.exitStatus
            }
        } else {
            sink = LogDestination.standardError
            journal = LogDestination.standardErrorIsJournal(environment: environment)
        }
        let log = WorkerLog(format: settings.format, threshold: settings.level, priorityPrefixes: journal, sink: sink)
        let limits: LimitOverrides
        do {
            limits = try LimitOverrides(environment: environment)
        } catch {
            log.note("configuration error: \(error)", account: nil, level: .error, event: "configuration_error")
            return RunOutcome.configurationError.exitStatus
        }
        var options = settings.options
        options.maximumRecordBytes = limits.maximumRecordBytes
        let round = WorkerRound(paths: ShelfPaths(environment: environment), options: options, log: log, limits: limits)

        guard let every = settings.every else {
            return await runOnce(settings.invocation, round: round)
        }
        return await runRepeatedly(every: every, settings.invocation, round: round, log: log)
    }

    // MARK: Parsing

    /// The settings, or nil when help or the version was printed.
    private func parse() throws(ParseError) -> Settings? {
        let invocation = try parser.parse(arguments)
        let every = try invocation.option("every", as: "a duration such as 90s, 5m or 1h", DurationParsing.parse)
        let budget = try invocation.option("budget", as: "a duration such as 30s, 2m or 1h", DurationParsing.parse)
        let pageSize = try invocation.option("page-size", as: "a whole number from 1 to 10000") { text in
            Int(text).flatMap { (1...10_000).contains($0) ? $0 : nil }
        }
        if invocation.option("account") != nil && invocation.flag("all-accounts") {
            throw ParseError.invalid("Use either '--account' or '--all-accounts', not both")
        }
        if invocation.flag("version") {
            print("shelf-sync \(WorkerCommand.version)")
            return nil
        }
        if invocation.wantsHelp {
            print(help.help(for: invocation.path), terminator: "")
            return nil
        }
        let options = SyncOptions(
            policy: invocation.option("policy").flatMap(ConflictPolicy.init(rawValue:)) ?? .manual,
            pageSize: pageSize ?? SyncOptions().pageSize, ignoresBackoff: invocation.flag("ignore-backoff"),
            budget: budget ?? Self.defaultBudget)
        return Settings(
            invocation: invocation, every: every, options: options,
            level: invocation.option("log-level").flatMap(LogLevel.init(rawValue:)) ?? .info,
            format: invocation.option("log-format").flatMap(WorkerLog.Format.init(rawValue:)) ?? .text)
    }

    /// A run's budget unless `--budget` says otherwise: a cron worker against a server
    /// that never answers exits 75 within a minute, long before the next tick.
    static let defaultBudget: Duration = .seconds(60)

    // MARK: Rounds

    private func runOnce(_ invocation: Invocation, round: WorkerRound) async -> Int32 {
        let result: WorkerResult
        do throws(WorkerConfigurationError) {
            let accounts = try WorkerAccounts.select(
                account: invocation.option("account"), allAccounts: invocation.flag("all-accounts"),
                environment: environment, paths: round.paths)
            result = await round.run(accounts)
        } catch {
            result = round.failed(error)
        }
        guard let path = invocation.option("report") else { return result.exitStatus }
        do {
            try result.report.write(to: path)
        } catch {
            round.log.note("could not write the report: \(error)", account: nil, level: .error, event: "report_failed")
            return max(result.exitStatus, RunOutcome.localStoreFailure.exitStatus)
        }
        return result.exitStatus
    }

    /// Rounds every `interval` until SIGTERM or SIGINT, which cancel the round in
    /// progress (or the wait) and end with one last line and status 0.
    private func runRepeatedly(every interval: Duration, _ invocation: Invocation, round: WorkerRound, log: WorkerLog) async -> Int32 {
        let loop = Task {
            while !Task.isCancelled {
                _ = await runOnce(invocation, round: round)
                do { try await Task.sleep(for: interval) } catch { break }
            }
        }
        let trap = SignalTrap { _ in loop.cancel() }
        await loop.value
        let reason = trap.firstSignal.map(SignalTrap.name) ?? "cancellation"
        log.note("stopped on \(reason); the next run continues where this one ended", account: nil, event: "stopped")
        return 0
    }
}
