import Vocabulary

// MARK: - SearchText

/// Folding for the store's search and sort columns (and a query's text): Vocabulary's `SearchFolding.fold`,
/// with a shortcut for pure ASCII text.
///
/// Folding through Foundation costs microseconds per string on Linux; most titles
/// are ASCII, where case- and diacritic-insensitive folding is exactly ASCII
/// lower-casing. A test checks both paths agree on every ASCII character.
public enum SearchText {
    public static func fold(_ text: String) -> String {
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

    // MARK: Folder

    /// Folds text into a byte buffer: ASCII by lower-casing in place, anything else
    /// through `fold`, remembering the last few hundred non-ASCII results — a pulled
    /// page names the same authors again and again, and Foundation's folding costs
    /// microseconds a string.
    public struct Folder {
        private var remembered: [String: String] = [:]
        public static let capacity = 512

        public init() {}

        /// Appends `text` folded.
        public mutating func append(_ text: String, to bytes: inout [UInt8]) {
            let start = bytes.count
            bytes.append(contentsOf: text.utf8)
            let isASCII = bytes.withUnsafeMutableBufferPointer { buffer in
                for index in start..<buffer.count {
                    let byte = buffer[index]
                    guard byte < 0x80 else { return false }
                    if byte &- UInt8(ascii: "A") < 26 { buffer[index] = byte | 0x20 }
                }
                return true
            }
            guard !isASCII else { return }
            bytes.removeSubrange(start...)
            bytes.append(contentsOf: folded(text).utf8)
        }

        private mutating func folded(_ text: String) -> String {
            if let known = remembered[text] { return known }
            let result = SearchText.fold(text)
            if remembered.count >= Self.capacity { remembered.removeAll(keepingCapacity: true) }
            remembered[text] = result
            return result
        }
    }

    /// Separates fields inside one search or sort column. A control character no one
    /// types, so a query never matches across two fields, and lower than every printable
    /// character, so "Dune" sorts before "Dune Messiah" whatever the second field holds.
    public static let fieldSeparator = "\u{1F}"
}
