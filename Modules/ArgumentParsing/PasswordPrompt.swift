import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - PasswordPrompt

/// Asks for a password on the controlling terminal with echo turned off (termios), as
/// `ssh` and `sudo` do: the password is never shown, never in argv, never in history.
public enum PasswordPrompt {
    /// - Parameter echo: show what is typed (a yes or no), instead of hiding it.
    /// - Returns: the line typed, without its newline; nil when there is no terminal
    ///   to ask on or the input ended.
    public static func read(prompt: String, echo: Bool = false) -> String? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { return nil }
        defer { close(tty) }

        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { return nil }
        var silent = saved
        if !echo { silent.c_lflag &= ~tcflag_t(ECHO) }
        silent.c_lflag |= tcflag_t(ICANON)
        guard tcsetattr(tty, TCSAFLUSH, &silent) == 0 else { return nil }
        // NB: the echo comes back however reading ends.
        defer {
            _ = tcsetattr(tty, TCSAFLUSH, &saved)
            if !echo { _ = write(tty, "\n", 1) }
        }
        _ = prompt.withCString { write(tty, $0, strlen($0)) }

        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(tty, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
