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
        var bytes: [UInt8] = []
        let count = withTerminal(prompt: prompt, echo: echo) { byte in bytes.append(byte) }
        guard count != nil else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A secret read straight into `buffer` (a passphrase's secure memory), echo off: no
    /// Swift value ever holds the bytes. Bytes past the buffer's end are read and dropped.
    /// - Returns: how many bytes the line had (more than `buffer.count`: too long); nil
    ///   when there is no terminal or the input ended before anything was typed.
    public static func read(prompt: String, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        var written = 0
        return withTerminal(prompt: prompt, echo: false) { byte in
            if written < buffer.count { buffer[written] = byte }
            written += 1
        }
    }

    /// Reads one line from the controlling terminal, handing each byte to `take`.
    /// - Returns: the line's length; nil when there is no terminal, or the input ended
    ///   before any byte.
    private static func withTerminal(prompt: String, echo: Bool, take: (UInt8) -> Void) -> Int? {
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

        var length = 0
        var byte: UInt8 = 0
        // NB: one byte at a time into `take`, and the byte variable wiped at the end.
        defer { byte = 0 }
        while true {
            let count = Glibc.read(tty, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return length == 0 ? nil : length }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            take(byte)
            length += 1
        }
        return length
    }
}
