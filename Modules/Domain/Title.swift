import Foundation

// MARK: - Title rule

/// The one rule every title in Shelf follows: trimmed of surrounding whitespace and
/// never empty. Types call this from their initializers so an invalid title can't exist.
public enum TitleRule {
    /// - Returns: `raw` without leading and trailing whitespace and newlines.
    /// - Throws: `DomainError.emptyTitle` when nothing is left.
    public static func validate(_ raw: String, field: String = "title") throws(DomainError) -> String {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .emptyTitle(field: field) }
        return trimmed
    }
}
