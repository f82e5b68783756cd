// MARK: - TerminalEscaping

/// Text from the network (a server's error message, a record's title, a reason) made
/// safe for a text log line or a terminal: every control character is shown as an
/// escape instead of acting — a newline can't forge a second log line, an ESC can't
/// recolour or rewrite the terminal.
///
/// `\n`, `\r` and `\t` read as themselves; other C0 and C1 controls and DEL as `\u{1B}`
/// style escapes; a backslash is left alone (it acts on nothing). JSON logs need none
/// of this: their encoder escapes control characters already.
public enum TerminalEscaping {
    /// `text` with every control character escaped; the same string when it has none.
    public static func escaped(_ text: String) -> String {
        // NB: most text is printable ASCII; checking bytes first keeps it free.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) && !containsC1(text) { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x00..<0x20, 0x7F, 0x80..<0xA0, 0x2028, 0x2029:
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func containsC1(_ text: String) -> Bool {
        // C1 controls (U+0080…U+009F) are encoded as C2 80…C2 9F; line and paragraph
        // separators as E2 80 A8/A9.
        let bytes = Array(text.utf8)
        guard bytes.count > 1 else { return false }
        for index in 0..<(bytes.count - 1) {
            if bytes[index] == 0xC2, (0x80...0x9F).contains(bytes[index + 1]) { return true }
            if bytes[index] == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 { return true }
        }
        return false
    }
}
