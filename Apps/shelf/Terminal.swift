import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Terminal

/// What the process is connected to, and raw writes to it.
///
/// Colour and progress bars are for people at a terminal: they are drawn only when the
/// stream is a TTY, and colour never when `NO_COLOR` is set (https://no-color.org) or
/// `--no-color` is given. Pipes and files get plain text without a single escape code.
struct Terminal: Sendable {
    let stdoutIsTerminal: Bool
    let stderrIsTerminal: Bool
    let stdinIsTerminal: Bool
    /// Colour is allowed at all: no `NO_COLOR` (any value but empty), no `--no-color`.
    let colorAllowed: Bool

    init(environment: [String: String], noColorFlag: Bool) {
        stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        stderrIsTerminal = isatty(STDERR_FILENO) == 1
        stdinIsTerminal = isatty(STDIN_FILENO) == 1
        colorAllowed = !noColorFlag && (environment["NO_COLOR"] ?? "").isEmpty
    }

    /// Colour on standard output.
    var colorsStandardOutput: Bool { colorAllowed && stdoutIsTerminal }
    /// Colour on standard error.
    var colorsStandardError: Bool { colorAllowed && stderrIsTerminal }

    /// The terminal's width in columns, 80 when it cannot be asked.
    var columns: Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    // MARK: Writing

    func writeOut(_ text: String) { Self.standardOutput(text) }
    func writeErr(_ text: String) { Self.standardError(text) }

    static func standardOutput(_ text: String) { write(text, to: STDOUT_FILENO) }
    static func standardError(_ text: String) { write(text, to: STDERR_FILENO) }

    /// Writes all of `text`, retrying short writes and interruptions.
    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
