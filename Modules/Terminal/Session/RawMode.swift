#if canImport(Glibc)
import Glibc
#endif

// MARK: - RawMode

/// A terminal's settings as they were, and raw mode over them (what `cfmakeraw` sets):
/// bytes arrive one by one, unechoed and untranslated, and output is not post-processed.
///
/// NB: ISIG goes off with the rest. Ctrl-C, Ctrl-Z and Ctrl-\ arrive as keys
/// (`Key.control`), not as SIGINT, SIGTSTP and SIGQUIT: the interface quits through its
/// own loop and restores the terminal in one place, a keypress never cuts a frame's
/// escape sequence in half, and Ctrl-Z still suspends because the session handles it
/// (`TerminalSession.suspend`). Signals sent from outside (`kill`) are still handled.
public struct RawMode: Sendable {
    public let descriptor: Int32
    /// The settings found when raw mode was entered; `restore()` puts them back.
    public let saved: termios

    /// Saves `descriptor`'s settings and switches it to raw mode.
    /// - Throws: `TerminalError.systemCall` when the descriptor is no terminal or refuses.
    public static func enter(on descriptor: Int32) throws(TerminalError) -> RawMode {
        let mode = RawMode(descriptor: descriptor, saved: try settings(of: descriptor))
        try mode.reapply()
        return mode
    }

    /// The current settings of `descriptor`.
    public static func settings(of descriptor: Int32) throws(TerminalError) -> termios {
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { throw .systemCall("tcgetattr", errorNumber: errno) }
        return settings
    }

    /// `settings` made raw: no line editing, echo, signals from keys, CR/NL translation,
    /// flow control or output processing; 8-bit characters; reads return at one byte.
    public static func raw(from settings: termios) -> termios {
        var raw = settings
        raw.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        raw.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return raw
    }

    /// Raw mode again, after a suspension or a stop from outside.
    public func reapply() throws(TerminalError) {
        var raw = Self.raw(from: saved)
        // NB: TCSAFLUSH drops keys typed before raw mode took hold: they were meant for the
        // shell's line editing, not for the interface.
        guard tcsetattr(descriptor, TCSAFLUSH, &raw) == 0 else { throw .systemCall("tcsetattr", errorNumber: errno) }
    }

    /// The saved settings back, once what was written has reached the terminal.
    public func restore() throws(TerminalError) {
        var saved = saved
        guard tcsetattr(descriptor, TCSADRAIN, &saved) == 0 else { throw .systemCall("tcsetattr", errorNumber: errno) }
    }
}
