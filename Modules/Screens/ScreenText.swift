import Presentation
// MARK: - ScreenText

/// The lines of one screen's text output, built in order and ended with a newline.
struct ScreenText {
    let style: TextStyle
    private var lines: [String] = []

    init(_ options: RenderOptions) {
        style = TextStyle(options)
    }

    mutating func line(_ text: String, _ role: TextStyle.Role? = nil) {
        lines.append(style.apply(role, to: TextWidth.sanitized(text)))
    }

    mutating func table(_ table: TextTable) {
        lines += table.lines(style)
    }

    /// `Error: <message>` when there is a message.
    mutating func error(_ message: String?) {
        guard let message else { return }
        line("Error: \(message)", .error)
    }

    var text: String {
        lines.joined(separator: "\n") + "\n"
    }
}

// MARK: - Lists

extension ScreenText {
    /// The common shape of a list screen: a loading line, or the table (with an empty-
    /// state line when there is nothing to list), a refreshing line while a refresh
    /// runs, and the failure.
    /// - Parameters:
    ///   - noun: plural, lower case ("books").
    ///   - table: nil when there is nothing to list (then `empty` is printed, if any).
    mutating func list(
        status: ScreenStatus, hasValue: Bool, noun: String,
        table: TextTable?, empty: String?, summary: String?, error: String?
    ) {
        switch (status, hasValue) {
        case (.idle, false):
            line("No \(noun) loaded yet.", .quiet)
        case (.loading, false):
            line("Loading \(noun)...", .quiet)
        case (.failed, false):
            break
        default:
            if let table {
                self.table(table)
                if let summary { line(summary, .quiet) }
            } else if let empty {
                line(empty)
            }
            if status == .loading { line("Refreshing \(noun)...", .quiet) }
        }
        self.error(error)
    }
}

// MARK: - ScreenStatus

/// The load state of a screen, as JSON names it (`"state": "loaded"`).
public enum ScreenStatus: String, Hashable, Sendable, Encodable {
    case idle, loading, loaded, failed

    public init<Value>(_ state: LoadingState<Value>) {
        switch state {
        case .idle: self = .idle
        case .loading: self = .loading
        case .loaded: self = .loaded
        case .failed: self = .failed
        }
    }
}
