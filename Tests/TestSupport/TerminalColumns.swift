import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - TerminalColumns

/// What a terminal makes of text, measured by the C library rather than by Shelf's own
/// `TextWidth`: glibc's `wcwidth` in a UTF-8 locale, the width terminals and `less` use.
public enum TerminalColumns {
    private typealias WCWidth = @convention(c) (Int32) -> Int32

    /// `wcwidth`, found at run time: the Glibc module does not export it (it sits behind
    /// `_XOPEN_SOURCE`), though every glibc has it.
    private static let wcwidth: WCWidth? = {
        _ = setlocale(LC_CTYPE, "C.UTF-8")
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "wcwidth") else { return nil }
        return unsafeBitCast(symbol, to: WCWidth.self)
    }()

    /// The columns `text` takes: the sum of each scalar's `wcwidth` (non-printing ones
    /// count 0). Nil when the C library has no `wcwidth`.
    public static func of(_ text: String) -> Int? {
        guard let wcwidth else { return nil }
        return text.unicodeScalars.reduce(0) { $0 + max(0, Int(wcwidth(Int32(bitPattern: $1.value)))) }
    }

    /// `text` without ANSI escape sequences (colour).
    public static func strippingEscapes(_ text: String) -> String {
        var out = ""
        var inEscape = false
        for character in text {
            if character == "\u{1B}" { inEscape = true; continue }
            if inEscape { if character.isLetter { inEscape = false }; continue }
            out.append(character)
        }
        return out
    }
}
