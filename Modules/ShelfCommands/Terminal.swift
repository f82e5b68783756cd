import ArgumentParsing
import Domain
import Screens
import Terminal

// MARK: - Terminal

/// What `shelf` is connected to, and raw writes to it, through the run's `Console`.
///
/// Colour and progress bars are for people at a terminal: what each stream gets is
/// `OutputPolicy`'s decision (`--color`, `TERM=dumb`, `NO_COLOR`, the terminal's size),
/// made from what the console answers. Pipes and files get plain text without a
/// single escape code unless `--color always` says otherwise.
struct Terminal: Sendable {
    let console: Console
    let stdoutIsTerminal: Bool
    let stderrIsTerminal: Bool
    let stdinIsTerminal: Bool
    /// Standard output's rules: its width, its colour, its pager.
    let standardOutputPolicy: OutputPolicy
    /// Colour on standard output.
    let colorsStandardOutput: Bool
    /// Colour on standard error.
    let colorsStandardError: Bool
    /// For `COLUMNS`, when the terminal cannot say its width.
    let environment: [String: String]

    init(console: Console, environment: [String: String], color: ColorChoice) {
        self.console = console
        self.environment = environment
        stdoutIsTerminal = console.isTerminal(.output)
        stderrIsTerminal = console.isTerminal(.error)
        stdinIsTerminal = console.isTerminal(.input)
        let size = console.size()
        standardOutputPolicy = OutputPolicy(
            isTerminal: stdoutIsTerminal, terminalColumns: size?.columns, terminalRows: size?.rows, environment: environment)
        colorsStandardOutput = standardOutputPolicy.colors(color)
        colorsStandardError = OutputPolicy(
            isTerminal: stderrIsTerminal, terminalColumns: nil, terminalRows: nil, environment: environment
        ).colors(color)
    }

    /// The terminal's width in columns, asked now (a window resized mid-run counts):
    /// Domain's `DisplayColumns.terminalWidth`, so `COLUMNS` when the terminal cannot
    /// say, else 80.
    var columns: Int {
        DisplayColumns.terminalWidth(measured: console.size()?.columns, environment: environment, fallback: 80) ?? 80
    }

    // MARK: Writing

    func writeOut(_ text: String) { console.standardOutput(text) }
    func writeErr(_ text: String) { console.standardError(text) }
}
