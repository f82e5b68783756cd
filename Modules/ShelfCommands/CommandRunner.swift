import ArgumentParsing
import Domain

// MARK: - CommandRunner

/// Runs one command line: `CommandLineProgram` parses it against `Shelf`'s declarations
/// and answers help, the version and the man page; this runs the command it names, and
/// turns whatever went wrong into `Error: …` and a documented exit status.
@MainActor
struct CommandRunner {
    let program: ProgramContext

    private static let commandLine = CommandLineProgram<Shelf>()

    func run() async -> ExitCode {
        let parsed: ParsedCommandLine, global: Shelf
        switch Self.commandLine.start(program) {
        case .finished(let status): return status
        case .run(let line, let root): (parsed, global) = (line, root)
        }
        guard let command = parsed.command as? any ShelfCommand else {
            // NB: unreachable while every leaf of the tree is a `ShelfCommand` (the
            // end-to-end tests run each one); a group without a default subcommand is
            // refused by the parser before this point.
            program.console.standardError("Error: '\(parsed.path.joined(separator: " "))' has nothing to run\n")
            return .software
        }

        let context = CommandContext(global: global, program: program)
        context.operationOrigin = parsed.path.dropFirst().joined(separator: " ")
        let status: ExitCode
        var failed = false
        do {
            status = try await command.run(context)
        } catch let error as ParseError {
            program.console.standardError(Self.commandLine.help.usageError(error, path: parsed.path))
            status = .usage
            failed = true
        } catch {
            context.output.error(failureMessage(error), details: failureDetails(error))
            status = .classifying(error)
            failed = true
        }
        await context.openedSession?.finish(context.output, warn: !failed)
        return status
    }
}
