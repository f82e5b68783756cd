import Foundation
import Vocabulary

// MARK: - ColorChoice

/// `--color auto|always|never`.
public enum ColorChoice: String, CaseIterable, Hashable, Sendable {
    /// Colour on a terminal that can show it: not `TERM=dumb`, no `NO_COLOR`.
    case auto
    /// Colour even into a pipe or a file (for `less -R` and the like); wins over `NO_COLOR`,
    /// as a command line wins over the environment.
    case always
    /// Never an escape code.
    case never
}

// MARK: - OutputPolicy

/// What the CLI's text output does on a stream, decided from facts the app gathers (is
/// it a terminal, how big, the environment, the command line) so the rules are tested
/// here without a terminal: colour, the width tables fit, and whether a pager shows it.
public struct OutputPolicy: Hashable, Sendable {
    /// The stream is a terminal (`isatty`).
    public var isTerminal: Bool
    /// The terminal's size as `TIOCGWINSZ` reported it; nil when it could not be asked
    /// (not a terminal) or reported zero.
    public var terminalColumns: Int?
    public var terminalRows: Int?
    public var environment: [String: String]

    public init(isTerminal: Bool, terminalColumns: Int?, terminalRows: Int?, environment: [String: String]) {
        self.isTerminal = isTerminal
        self.terminalColumns = terminalColumns.flatMap { $0 > 0 ? $0 : nil }
        self.terminalRows = terminalRows.flatMap { $0 > 0 ? $0 : nil }
        self.environment = environment
    }

    // MARK: Colour

    /// `never` and `--no-color` never; `always` always; `auto` only on a terminal whose
    /// `TERM` is not `dumb`, and not when `NO_COLOR` is set to anything but empty
    /// (https://no-color.org).
    public func colors(_ choice: ColorChoice) -> Bool {
        switch choice {
        case .never: false
        case .always: true
        case .auto: isTerminal && environment["TERM"] != "dumb" && (environment["NO_COLOR"] ?? "").isEmpty
        }
    }

    // MARK: Width

    /// The widest a line may be: the terminal's own width (`TIOCGWINSZ`), else
    /// `COLUMNS` when it holds a width, else 80 on a terminal that cannot say, and no
    /// limit at all off a terminal.
    public var width: Int? {
        DisplayColumns.terminalWidth(measured: terminalColumns, environment: environment, fallback: isTerminal ? 80 : nil)
    }

    /// The terminal's height in lines: `TIOCGWINSZ`, else `LINES`; nil off a terminal.
    public var height: Int? {
        guard isTerminal else { return nil }
        return terminalRows ?? DisplayColumns.dimension(environment["LINES"])
    }

    // MARK: Pager

    /// The pager used when none is set: `less` that quits when the text fits one screen
    /// (`-F`), shows colour (`-R`) and leaves the text on the screen (`-X`).
    public static let defaultPager = "less -FRX"

    /// Whether output of this format could go through a pager at all: text, on a
    /// terminal of known height, without `--no-pager` (so a pipe never pays for counting lines).
    public func mayPage(_ format: OutputFormat, noPager: Bool) -> Bool {
        !noPager && format == .text && isTerminal && height != nil
    }

    /// The shell command that pages `lineCount` lines of text, or nil to print them
    /// straight: only text (not `--json`) on a terminal, longer than the terminal is
    /// high, without `--no-pager`, with `$PAGER` unless it is empty or `cat`.
    public func pager(lineCount: Int, format: OutputFormat, noPager: Bool) -> String? {
        guard mayPage(format, noPager: noPager), let height, lineCount > height else { return nil }
        guard let pager = environment["PAGER"] else { return Self.defaultPager }
        let command = pager.trimmingCharacters(in: .whitespaces)
        return command.isEmpty || command == "cat" ? nil : command
    }
}
