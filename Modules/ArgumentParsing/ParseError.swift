// MARK: - ParseError

/// Why a command line was refused. Each kind is distinct so scripts and tests can
/// tell them apart; the message names the offending word.
///
/// An unknown command or option carries the names that would have been accepted there,
/// so the message can suggest the closest ones ("did you mean 'books'?").
public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownOption(String, available: [String] = [])
    case missingValue(option: String)
    case unexpectedValue(option: String)
    case invalidValue(option: String, value: String, allowed: [String])
    case missingOption(String)
    case missingArgument(String)
    case unexpectedArgument(String)
    case unknownSubcommand(String, available: [String])
    case missingSubcommand(available: [String])
    /// A value that parsed but is not acceptable (e.g. `--quantity abc`).
    case invalid(String)

    public var description: String {
        switch self {
        case .unknownOption(let name, let available):
            let close = Suggestions.closest(to: name, among: available)
            return close.isEmpty ? "Unknown option '\(name)'" : "Unknown option '\(name)'; did you mean \(Suggestions.phrase(close))?"
        case .missingValue(let option):
            return "Missing value for '--\(option)'"
        case .unexpectedValue(let option):
            return "'--\(option)' is a flag and takes no value"
        case .invalidValue(let option, let value, let allowed):
            return "Invalid value '\(value)' for '--\(option)'; expected one of: \(allowed.joined(separator: ", "))"
        case .missingOption(let option):
            return "Missing required option '--\(option)'"
        case .missingArgument(let name):
            return "Missing expected argument '<\(name)>'"
        case .unexpectedArgument(let word):
            return "Unexpected argument '\(word)'"
        case .unknownSubcommand(let word, let available):
            let close = Suggestions.closest(to: word, among: available)
            guard close.isEmpty else { return "Unknown command '\(word)'; did you mean \(Suggestions.phrase(close))?" }
            return "Unknown command '\(word)'; expected one of: \(available.joined(separator: ", "))"
        case .missingSubcommand(let available):
            return "Missing command; expected one of: \(available.joined(separator: ", "))"
        case .invalid(let message):
            return message
        }
    }
}
