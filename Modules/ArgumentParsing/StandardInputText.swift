#if canImport(Glibc)
import Glibc
#endif

// MARK: - StandardInputText

/// Text given on standard input for a value written `-` (`--body -`), read to its end
/// with a bound, as UTF-8, its final line break(s) dropped as `$(…)` in a shell does.
public enum StandardInputText {
    /// Reads `descriptor` to its end.
    /// - Throws: `TextInputError.tooLarge` past `limit` bytes (reading stops there),
    ///   `.notUTF8`, `.fileSystem` when the read fails.
    public static func read(from descriptor: Int32 = STDIN_FILENO, limit: Int) throws(TextInputError) -> String {
        let bytes = try BoundedRead.all(from: descriptor, limit: limit, source: "standard input")
        return try TextDecoding.text(bytes, source: "standard input")
    }

    /// The same rules for bytes a console holds already (a test's standard input).
    public static func text(of bytes: [UInt8], limit: Int) throws(TextInputError) -> String {
        guard bytes.count <= limit else { throw .tooLarge(source: "standard input", limit: limit) }
        return try TextDecoding.text(bytes, source: "standard input")
    }
}

// MARK: - Reading

enum BoundedRead {
    /// Every byte until the end, or `tooLarge` as soon as there are more than `limit`.
    static func all(from descriptor: Int32, limit: Int, source: String) throws(TextInputError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(operation: "read \(source)", reason: String(cString: strerror(errno)))
            }
            bytes += chunk[..<count]
            if bytes.count > limit { throw .tooLarge(source: source, limit: limit) }
        }
    }
}

public enum TextDecoding {
    /// The bytes as text, without the line breaks that end it.
    static func text(_ bytes: [UInt8], source: String) throws(TextInputError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8(source: source) }
        return withoutFinalLineBreaks(text)
    }

    static func withoutFinalLineBreaks(_ text: String) -> String {
        var text = Substring(text)
        while let last = text.last, last == "\n" || last == "\r\n" || last == "\r" { text = text.dropLast() }
        return String(text)
    }

    /// Nothing but spaces, tabs and line breaks.
    public static func isBlank(_ text: String) -> Bool {
        text.allSatisfy(\.isWhitespace)
    }
}
