import ArgumentParsing
import Domain
import Presentation
import Screens
import Synchronization
import Terminal

// MARK: - Output

/// Where a command's results go, in the shape the reader asked for: Presentation's
/// screens as text tables (coloured on a terminal) or as JSON on standard output;
/// progress, warnings, errors and `--verbose` notes on standard error.
struct Output: Sendable {
    let terminal: Terminal
    let format: OutputFormat
    /// `-q`: no confirmations or progress; reads and errors still print.
    let quiet: Bool
    /// `-v`: notes about what happens (account, refreshes) on standard error.
    let verbose: Bool
    /// Records the command's reads left out; listed in a list's `--json`.
    let unreadable: UnreadableLog
    /// `--no-pager`: never page, even on a terminal.
    var noPager = false
    /// `--progress`: progress on standard error even when it is no terminal.
    var progress = false
    /// Whether the command's writes go to the local-only store (set when it is opened).
    let destination = WriteDestination()

    var isJSON: Bool { format == .json }

    private var screenOptions: RenderOptions {
        RenderOptions(color: terminal.colorsStandardOutput, width: terminal.standardOutputPolicy.width)
    }

    // MARK: Screens

    /// Prints what a read asked for: through the pager when it is longer than the
    /// terminal (`OutputPolicy.pager`), else straight.
    func show(_ screen: some RenderableScreen) throws {
        let text = try screen.render(format, options: screenOptions)
        let policy = terminal.standardOutputPolicy
        if policy.mayPage(format, noPager: noPager),
           let pager = policy.pager(lineCount: text.utf8.count { $0 == UInt8(ascii: "\n") }, format: format, noPager: noPager),
           Pager.show(text, command: pager, environment: policy.environment) {
            return
        }
        terminal.writeOut(text)
    }

    /// Prints the outcome of a change: the written object as JSON, or its confirmation
    /// line unless `--quiet`. A change to the local-only store says it is kept there.
    func confirm(_ screen: some RenderableScreen) throws {
        guard isJSON || !quiet else { return }
        if let change = screen as? ChangeScreen, destination.isLocalOnly {
            try show(change.withoutServer)
            return
        }
        try show(screen)
    }

    /// A screen that could not be filled, e.g. "Error: Could not load books: …": as
    /// JSON on standard output (scripts parse it), as text on standard error.
    func showFailure(_ screen: some RenderableScreen) throws {
        if isJSON {
            terminal.writeOut(try screen.renderJSON())
        } else {
            terminal.writeErr(screen.renderText(RenderOptions(color: terminal.colorsStandardError)))
        }
    }

    /// Prints a list screen after its model loaded (as JSON with the `unreadable` records
    /// its reads left out): the screen, or — when the load
    /// failed with nothing to show — its failure, as exit status 74. Network failures
    /// never get here (see `ReportedRefresher`): what is left is the local store.
    /// - Parameter listsUnreadable: false for a screen that reads no collection (`status`).
    func present<Value>(_ screen: some RenderableScreen, loaded state: LoadingState<Value>, listsUnreadable: Bool = true) throws -> ExitCode {
        guard listsUnreadable else { return try present(screen, state) }
        return try present(ScreenWithUnreadable(screen, unreadable: unreadable.views), state)
    }

    private func present<Value>(_ screen: some RenderableScreen, _ state: LoadingState<Value>) throws -> ExitCode {
        if state.failureMessage != nil, !state.hasValue {
            try showFailure(screen)
            return .ioError
        }
        try show(screen)
        return .success
    }

    // MARK: Standard error

    // NB: messages can carry a server's words (an error text, a reason): each is
    // escaped (`TerminalEscaping`), so it stays one line and sends no escape codes.

    /// - Parameter details: lines under the error (an ambiguous id's candidates), each
    ///   escaped on its own and indented.
    func error(_ message: String, details: [String] = []) {
        terminal.writeErr(styled("Error:", code: "31") + " \(TerminalEscaping.escaped(message))\n")
        for line in details { terminal.writeErr("  \(TerminalEscaping.escaped(line))\n") }
    }

    func warn(_ message: String) {
        terminal.writeErr(styled("Warning:", code: "33") + " \(TerminalEscaping.escaped(message))\n")
    }

    /// A `--verbose` note.
    func note(_ message: String) {
        guard verbose else { return }
        terminal.writeErr("shelf: \(TerminalEscaping.escaped(message))\n")
    }

    private func styled(_ text: String, code: String) -> String {
        terminal.colorsStandardError ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

// MARK: - WriteDestination

/// Where a command's writes go, learnt when its account session opens: the local-only
/// store has no account to sync them with.
final class WriteDestination: Sendable {
    private let localOnly = Mutex(false)

    var isLocalOnly: Bool { localOnly.withLock { $0 } }

    func markLocalOnly() { localOnly.withLock { $0 = true } }
}
