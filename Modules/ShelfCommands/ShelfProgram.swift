import ArgumentParsing
import Domain
import Foundation

// MARK: - ShelfProgram

/// `shelf`: runs one command line. `Apps/shelf/main.swift` calls `main`, which runs the
/// process's own; tests call `run` in-process with their own console, environment and
/// clock.
public enum ShelfProgram {
    /// Runs `context.arguments` and returns the status to exit with.
    @MainActor
    public static func run(_ context: ProgramContext) async -> ExitCode {
        await CommandRunner(program: context).run()
    }

    /// Runs the process's command line on its own streams, and exits with the status.
    @MainActor
    public static func main() async -> Never {
        Console.ignoreBrokenPipes()
        let status = await run(.live())
        exit(status.rawValue)
    }
}
