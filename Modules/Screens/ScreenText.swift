import Presentation
// MARK: - ScreenText

/// The lines of one screen's text output, built in order and ended with a newline.
///
/// With a width (a terminal's), no line is wider: a sentence wraps at spaces, a table
/// shrinks its widest column, and anything still too wide is cut at the width.
struct ScreenText {
    let style: TextStyle
    let width: Int?
    private var lines: [String] = []

    init(_ options: RenderOptions) {
        style = TextStyle(options)
        width = options.width
    }

    mutating func line(_ text: String, _ role: TextStyle.Role? = nil) {
        let text = TextWidth.sanitized(text)
        guard let width else {
            lines.append(style.apply(role, to: text))
            return
        }
        lines += TextWidth.wrapped(text, width: width).map { style.apply(role, to: $0) }
    }

    mutating func table(_ table: TextTable) {
        lines += table.lines(style, width: width)
    }

    /// `Error: <message>` when there is a message.
    mutating func error(_ message: String?) {
        guard let message else { return }
        line("Error: \(message)", .error)
    }

    var text: String {
        guard let width else { return lines.joined(separator: "\n") + "\n" }
        return lines.map { TextWidth.clipped($0, width: width) }.joined(separator: "\n") + "\n"
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
