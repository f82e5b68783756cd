import Foundation

// MARK: - Search folding

/// The one definition of "matches" for searches in Shelf: case- and
/// diacritic-insensitive substring, so `cafe` finds `Café` and `LE GUIN` finds `Le Guin`.
///
/// Storage folds the searchable text of each record once at write time with the same
/// function, which keeps a search over 100,000 records a plain substring scan.
public enum SearchFolding {
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .lowercased()
    }

    /// Whether `query` (any case, any accents) occurs in any of `fields`.
    /// An empty or whitespace-only query matches everything.
    public static func matches(_ query: String, in fields: String...) -> Bool {
        let needle = fold(query.trimmingCharacters(in: .whitespaces))
        guard !needle.isEmpty else { return true }
        return fields.contains { fold($0).contains(needle) }
    }
}
