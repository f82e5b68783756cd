import ArgumentParsing
import Foundation
import Vocabulary

// MARK: - WorkerProgram

/// `shelf-sync`: one worker run. `Apps/shelf-sync/main.swift` calls `main`, which runs the
/// process's own; tests call `run` in-process with their own console, environment and
/// clock.
public enum WorkerProgram {
    /// Runs `context.arguments` and returns the status to exit with.
    public static func run(_ context: ProgramContext) async -> ExitCode {
        await ShelfSyncWorker(program: context).run()
    }

    /// Runs the process's command line on its own streams, and exits with the status.
    public static func main() async -> Never {
        let status = await run(.live())
        exit(status.rawValue)
    }
}
