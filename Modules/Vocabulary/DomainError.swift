// MARK: - DomainError

/// A rule of the domain that a value broke.
///
/// Every case names the rule and carries the offending input, so a message built
/// from it tells the user what to change rather than merely that something failed.
public enum DomainError: Error, Equatable, Sendable {
    /// A title was empty or only whitespace after trimming.
    case emptyTitle(field: String)
    /// A note's body was empty or only whitespace (`NoteBodyRule`).
    case emptyBody
    /// A list held the same identity more than once.
    case duplicateIdentities([String])
    /// The daily reading goal was outside 5...120 minutes or not a multiple of 5.
    case dailyGoalOutOfRange(Int)
    /// A cart quantity below one (removing is a separate intent, not quantity 0).
    case invalidQuantity(Int)
    /// A price below zero.
    case negativePrice(Int)
    /// A currency that is not three ASCII letters (ISO 4217 shape).
    case invalidCurrency(String)
    /// An identifier that is empty or holds characters the server cannot store.
    case invalidIdentifier(String)
    /// Minutes of a reading session outside 1...1440 (one day).
    case invalidMinutes(Int)
    /// A calendar day that is not `YYYY-MM-DD` or does not exist.
    case invalidDay(String)
    /// A reading session on a day that has not come yet (`today` is the second value).
    case dayInTheFuture(String, today: String)
}

extension DomainError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .emptyTitle(let field):
            return "\(field) must not be empty"
        case .emptyBody:
            return "a note's body must not be empty; nothing was written"
        case .duplicateIdentities(let ids):
            return "duplicate ids: \(ids.joined(separator: ", "))"
        case .dailyGoalOutOfRange(let minutes):
            return "daily goal must be 5...120 minutes in steps of 5, got \(minutes)"
        case .invalidQuantity(let quantity):
            return "quantity must be at least 1, got \(quantity)"
        case .negativePrice(let minor):
            return "price must not be negative, got \(minor)"
        case .invalidCurrency(let code):
            return "currency must be a three-letter ISO 4217 code, got '\(code)'"
        case .invalidIdentifier(let id):
            return "invalid id '\(id)': use letters, digits, '-' and '_' (1...64 characters)"
        case .invalidMinutes(let minutes):
            return "minutes must be 1...1440, got \(minutes)"
        case .invalidDay(let text):
            return "invalid day '\(text)': use YYYY-MM-DD"
        case .dayInTheFuture(let day, let today):
            return "\(day) is after today (\(today)): reading is logged on the day it happened"
        }
    }
}
