import Foundation
import Screens
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Terminal

/// What the process is connected to, and raw writes to it.
///
/// Colour and progress bars are for people at a terminal: what each stream gets is
/// `OutputPolicy`'s decision (`--color`, `TERM=dumb`, `NO_COLOR`, the terminal's size),
/// made from what this type asks the system. Pipes and files get plain text without a
/// single escape code unless `--color always` says otherwise.
struct Terminal: Sendable {
    let stdoutIsTerminal: Bool
    let stderrIsTerminal: Bool
    let stdinIsTerminal: Bool
    /// Standard output's rules: its width, its colour, its pager.
    let standardOutputPolicy: OutputPolicy
    /// Colour on standard output.
    let colorsStandardOutput: Bool
    /// Colour on standard error.
    let colorsStandardError: Bool

    init(environment: [String: String], color: ColorChoice) {
        stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        stderrIsTerminal = isatty(STDERR_FILENO) == 1
        stdinIsTerminal = isatty(STDIN_FILENO) == 1
        let size = Self.windowSize(of: STDOUT_FILENO)
        standardOutputPolicy = OutputPolicy(
            isTerminal: stdoutIsTerminal, terminalColumns: size?.columns, terminalRows: size?.rows, environment: environment)
        colorsStandardOutput = standardOutputPolicy.colors(color)
        colorsStandardError = OutputPolicy(
            isTerminal: stderrIsTerminal, terminalColumns: nil, terminalRows: nil, environment: environment
        ).colors(color)
    }

    /// The size `TIOCGWINSZ` reports for a descriptor; nil when it is no terminal.
    private static func windowSize(of descriptor: Int32) -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

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

    /// Writes all of `text`, retrying short writes and interruptions. A reader that went
    /// away (a pager quit with `q`, `| head`) ends the write quietly: SIGPIPE is ignored
    /// (`ignoreBrokenPipes`), so the write fails with EPIPE and the rest is dropped.
    @discardableResult
    static func write(_ text: String, to descriptor: Int32) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            bytes = bytes.dropFirst(written)
        }
        return true
    }

    /// A reader that closes the pipe early (`q` in the pager, `shelf books | head -1`)
    /// must not kill shelf with SIGPIPE: ignored, the write fails with EPIPE instead,
    /// which `write` takes as "nobody reads the rest".
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }
}
