import Foundation

// MARK: - Title rule

/// The one rule every title in Shelf follows: trimmed of surrounding whitespace and
/// never empty. Types call this from their initializers so an invalid title can't exist.
public enum TitleRule {
    /// - Returns: `raw` without leading and trailing whitespace and newlines.
    /// - Throws: `DomainError.emptyTitle` when nothing is left.
    public static func validate(_ raw: String, field: String = "title") throws(DomainError) -> String {
        // Most titles start and end with a printable ASCII character: nothing to trim,
        // and no trip through Foundation's trimming (microseconds a call on Linux, which
        // a listing of thousands of books pays per title and author).
        if let first = raw.utf8.first, let last = raw.utf8.last, isPrintableASCII(first), isPrintableASCII(last) {
            return raw
        }
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .emptyTitle(field: field) }
        return trimmed
    }

    /// `!` to `~`: neither whitespace nor a newline, and a whole character on its own.
    private static func isPrintableASCII(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }
}
