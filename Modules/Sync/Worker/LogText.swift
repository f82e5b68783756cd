// MARK: - LogText

/// Text for a text log line: server messages and record ids come from outside, so a
/// control character (a newline that would forge a second line, an escape sequence
/// that would repaint a terminal) is written as a visible `\u{…}` escape instead.
enum LogText {
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// C0 controls, DEL and C1 controls.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
