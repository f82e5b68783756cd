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

    /// `shelf`'s tree of command declarations, for what walks every command (help,
    /// completions and man pages do; so do the tests that hold every command to the
    /// stream and exit-code rules of docs/cli.md).
    public static var declarations: CommandSpec { CommandLineParser(root: Shelf.self).root }

    /// Runs the process's command line on its own streams, and exits with the status.
    @MainActor
    public static func main() async -> Never {
        Console.ignoreBrokenPipes()
        let status = await run(.live())
        exit(status.rawValue)
    }
}
