import Foundation

// MARK: - Title rule

/// The one rule every title in Shelf follows: trimmed of surrounding whitespace and
/// never empty. Types call this from their initializers so an invalid title can't exist.
public enum TitleRule {
    /// - Returns: `raw` without leading and trailing whitespace and newlines.
    /// - Throws: `DomainError.emptyTitle` when nothing is left.
    public static func validate(_ raw: String, field: String = "title") throws(DomainError) -> String {
        // NB: a title that starts and ends with a printable ASCII character other than a
        // space has nothing to trim — the common case, checked without Foundation's
        // character sets, which cost more than decoding the record (thousands per listing).
        if let first = raw.utf8.first, let last = raw.utf8.last, isVisibleASCII(first), isVisibleASCII(last) {
            return raw
        }
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .emptyTitle(field: field) }
        return trimmed
    }

    /// `raw` without leading and trailing whitespace and newlines, possibly empty: for
    /// text that may be left out (a book's author).
    public static func trimmed(_ raw: String) -> String {
        if let first = raw.utf8.first, let last = raw.utf8.last, isVisibleASCII(first), isVisibleASCII(last) {
            return raw
        }
        return raw.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func isVisibleASCII(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }
}
