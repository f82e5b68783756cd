import ArgumentParsing
import Foundation
import Storage
import Sync
import Vocabulary

// MARK: - ShelfSyncWorker

/// Wires the worker: parse, pick the log and the accounts, run rounds (Sync's
/// `WorkerRound`), write the report, exit with the worst status.
struct ShelfSyncWorker {
    let program: ProgramContext

    private var environment: [String: String] { program.environment }

    private static let commandLine = CommandLineProgram<WorkerCommand>()

    func run() async -> ExitCode {
        let command: WorkerCommand
        switch Self.commandLine.start(program) {
        case .finished(let status): return status
        // NB: the root is the only command, so the root is the command to run.
        case .run(_, let root): command = root
        }

        let sink: @Sendable (String) -> Void
        var journal = false
        if let path = command.logFile {
            do {
                let file = try LogFile(path: program.absolutePath(path))
                sink = { file.write($0) }
            } catch {
                program.console.standardError("shelf-sync: cannot write the log: \(error)\n")
                return RunOutcome.localStoreFailure.exitStatus
            }
        } else {
            let console = program.console
            sink = { console.standardError($0) }
            journal = LogDestination.standardErrorIsJournal(environment: environment)
        }
        let log = WorkerLog(format: command.logFormat, threshold: command.logLevel, priorityPrefixes: journal, clock: program.clock, sink: sink)
        let limits: LimitOverrides
        do {
            limits = try LimitOverrides(environment: environment)
        } catch {
            log.note("configuration error: \(error)", account: nil, level: .error, event: "configuration_error")
            return RunOutcome.configurationError.exitStatus
        }
        var options = command.syncOptions
        options.maximumRecordBytes = limits.maximumRecordBytes
        let round = WorkerRound(paths: ShelfPaths(environment: environment), options: options, log: log, limits: limits, clock: program.clock)

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
            try result.report.write(to: program.absolutePath(path))
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
