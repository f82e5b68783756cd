import ArgumentParsing
import Domain
import Foundation
import Storage
import Sync

// MARK: - ShelfSyncWorker

/// Wires the worker: parse, pick the log and the accounts, run rounds (Sync's
/// `WorkerRound`), write the report, exit with the worst status.
struct ShelfSyncWorker {
    let arguments: [String]
    let environment: [String: String]

    private static let parser = CommandLineParser(root: WorkerCommand.self)
    private static let help = HelpRenderer(parser: parser)

    func run() async -> ExitCode {
        let command: WorkerCommand
        do throws(ParseError) {
            let parsed = try Self.parser.parse(arguments)
            if parsed.wantsHelp {
                print(Self.help.help(for: parsed.path), terminator: "")
                return .success
            }
            // NB: the root is the only command, so every accepted line makes it.
            command = parsed.command(WorkerCommand.self) ?? WorkerCommand()
        } catch {
            FileHandle.standardError.write(Data(Self.help.usageError(error, path: ["shelf-sync"]).utf8))
            return .usage
        }
        if command.version {
            print("shelf-sync \(WorkerCommand.version)")
            return .success
        }
        if command.generateMan {
            let date = ManPage.date(environment: environment, now: Int64(Date().timeIntervalSince1970))
            print(ManPage(parser: Self.parser, source: "shelf-sync \(WorkerCommand.version)", date: date, seeAlso: ["shelf(1)"]).render(),
                  terminator: "")
            return .success
        }

        let sink: @Sendable (String) -> Void
        var journal = false
        if let path = command.logFile {
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
        let log = WorkerLog(format: command.logFormat, threshold: command.logLevel, priorityPrefixes: journal, sink: sink)
        let limits: LimitOverrides
        do {
            limits = try LimitOverrides(environment: environment)
        } catch {
            log.note("configuration error: \(error)", account: nil, level: .error, event: "configuration_error")
            return RunOutcome.configurationError.exitStatus
        }
        var options = command.syncOptions
        options.maximumRecordBytes = limits.maximumRecordBytes
        let round = WorkerRound(paths: ShelfPaths(environment: environment), options: options, log: log, limits: limits)

        guard let every = command.every else {
            return await runOnce(command, round: round)
        }
        return await runRepeatedly(every: every, command, round: round, log: log)
    }

    // MARK: Rounds

    private func runOnce(_ command: WorkerCommand, round: WorkerRound) async -> ExitCode {
        let result: WorkerResult
        do throws(WorkerConfigurationError) {
            let accounts = try WorkerAccounts.select(
                account: command.account, allAccounts: command.allAccounts,
                environment: environment, paths: round.paths)
            result = await round.run(accounts)
        } catch {
            result = round.failed(error)
        }
        guard let path = command.report else { return result.exitStatus }
        do {
            try result.report.write(to: path)
        } catch {
            round.log.note("could not write the report: \(error)", account: nil, level: .error, event: "report_failed")
            // NB: the higher status wins, as it always has: 74 unless the run said 75, 77 or 78.
            let unwritten = RunOutcome.localStoreFailure.exitStatus
            return result.exitStatus.rawValue > unwritten.rawValue ? result.exitStatus : unwritten
        }
        return result.exitStatus
    }

    /// Rounds every `interval` until SIGTERM or SIGINT, which cancel the round in
    /// progress (or the wait) and end with one last line and status 0.
    private func runRepeatedly(every interval: Duration, _ command: WorkerCommand, round: WorkerRound, log: WorkerLog) async -> ExitCode {
        let loop = Task {
            while !Task.isCancelled {
                _ = await runOnce(command, round: round)
                do { try await Task.sleep(for: interval) } catch { break }
            }
        }
        let trap = SignalTrap { _ in loop.cancel() }
        await loop.value
        let reason = trap.firstSignal.map(SignalTrap.name) ?? "cancellation"
        log.note("stopped on \(reason); the next run continues where this one ended", account: nil, event: "stopped")
        return .success
    }
}
