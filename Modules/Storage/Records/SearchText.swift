import Domain

// MARK: - SearchText

/// Folding for the store's search and sort columns: Domain's `SearchFolding.fold`,
/// with a shortcut for pure ASCII text.
///
/// Folding through Foundation costs microseconds per string on Linux; most titles
/// are ASCII, where case- and diacritic-insensitive folding is exactly ASCII
/// lower-casing. A test checks both paths agree on every ASCII character.
enum SearchText {
    static func fold(_ text: String) -> String {
        var isASCII = true
        var hasUpper = false
        for byte in text.utf8 {
            if byte >= 0x80 { isASCII = false; break }
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { hasUpper = true }
        }
        guard isASCII else { return SearchFolding.fold(text) }
        guard hasUpper else { return text }
        return String(decoding: text.utf8.map { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
        }, as: UTF8.self)
    }

    /// Separates fields inside one search or sort column. A control character no one
    /// types, so a query never matches across two fields, and lower than every printable
    /// character, so "Dune" sorts before "Dune Messiah" whatever the second field holds.
    static let fieldSeparator = "\u{1F}"
}
