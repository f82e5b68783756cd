import ArgumentParsing
import Domain
import Foundation

// MARK: - CommandRunner

/// Runs one command line: parses it against `Shelf`'s declarations, prints help or the
/// version, or runs the command it names, and turns whatever went wrong into `Error: …`
/// and a documented exit status.
@MainActor
struct CommandRunner {
    let arguments: [String]
    let environment: [String: String]

    private static let parser = CommandLineParser(root: Shelf.self)
    private static let help = HelpRenderer(parser: parser)

    func run() async -> ExitCode {
        let parsed: ParsedCommandLine
        do {
            parsed = try Self.parser.parse(arguments)
        } catch {
            let path = Self.parser.commandPath(for: arguments)
            Terminal.standardError(Self.help.usageError(error, path: path))
            return .usage
        }
        if parsed.wantsHelp {
            Terminal.standardOutput(Self.help.help(for: parsed.path))
            return .success
        }
        // NB: the parser makes the root for every line it accepts (it declares the shared options).
        let global = parsed.command(Shelf.self) ?? Shelf()
        if global.version {
            Terminal.standardOutput("shelf \(Shelf.version)\n")
            return .success
        }
        if global.generateMan {
            let date = ManPage.date(environment: environment, now: Int64(Date().timeIntervalSince1970))
            let page = ManPage(parser: Self.parser, source: "shelf \(Shelf.version)", date: date, seeAlso: ["shelf-sync(1)"])
            Terminal.standardOutput(page.render())
            return .success
        }
        guard let command = parsed.command as? any ShelfCommand else {
            // NB: unreachable while every leaf of the tree is a `ShelfCommand` (the
            // end-to-end tests run each one); a group without a default subcommand is
            // refused by the parser before this point.
            Terminal.standardError("Error: '\(parsed.path.joined(separator: " "))' has nothing to run\n")
            return .software
        }

        let context = CommandContext(global: global, environment: environment)
        let status: ExitCode
        var failed = false
        do {
            status = try await command.run(context)
        } catch let error as ParseError {
            Terminal.standardError(Self.help.usageError(error, path: parsed.path))
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
