import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Console

/// What a program is connected to: its three standard streams, whether each is a
/// terminal, the terminal's size, and the terminal to ask a secret on.
///
/// Commands never reach for the process's descriptors themselves: they write and ask
/// through a console, so a test runs them in-process with one that captures what they
/// print and answers `isatty` as the test says (`Console.live` is the process's own).
public struct Console: Sendable {
    /// A standard stream.
    public enum Stream: Sendable, Hashable {
        case input, output, error
    }

    /// Writes all of the bytes to the stream; false when nobody reads it any more
    /// (a pager quit, `| head`), and the rest is dropped.
    public var write: @Sendable (_ bytes: [UInt8], _ stream: Stream) -> Bool
    /// Whether the stream is a terminal (isatty).
    public var isTerminal: @Sendable (Stream) -> Bool
    /// The terminal's size as standard output sees it; nil when it is no terminal.
    public var size: @Sendable () -> (columns: Int, rows: Int)?
    /// Standard input to its end, at most `limit` bytes, as UTF-8 (`--body -`).
    public var readInput: @Sendable (_ limit: Int) throws(TextInputError) -> String
    /// A line typed on the terminal with echo off after `prompt`; nil when there is no
    /// terminal to ask on or the input ended.
    public var readSecret: @Sendable (_ prompt: String) -> String?
    /// The same, read straight into `buffer` (memory the caller wipes: a passphrase's
    /// secure memory), so no `String` or array ever holds it. Returns the bytes typed — a
    /// count above the buffer's size means the line was longer and the rest was dropped —
    /// or nil when there is no terminal to ask on or the input ended.
    public var readSecretBytes: @Sendable (_ prompt: String, _ buffer: UnsafeMutableRawBufferPointer) -> Int?
    /// A line typed on the terminal after `prompt`, shown as it is typed (a yes or no);
    /// nil when there is no terminal to ask on or the input ended.
    public var readAnswer: @Sendable (_ prompt: String) -> String?

    public init(
        write: @escaping @Sendable ([UInt8], Stream) -> Bool,
        isTerminal: @escaping @Sendable (Stream) -> Bool,
        size: @escaping @Sendable () -> (columns: Int, rows: Int)?,
        readInput: @escaping @Sendable (Int) throws(TextInputError) -> String,
        readSecret: @escaping @Sendable (String) -> String?,
        readSecretBytes: (@Sendable (String, UnsafeMutableRawBufferPointer) -> Int?)? = nil,
        readAnswer: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.write = write
        self.isTerminal = isTerminal
        self.size = size
        self.readInput = readInput
        self.readSecret = readSecret
        // NB: a console that only answers with text (a test's) copies it into the buffer.
        self.readSecretBytes = readSecretBytes ?? { prompt, buffer in
            guard let text = readSecret(prompt) else { return nil }
            let bytes = Array(text.utf8)
            for (index, byte) in bytes.prefix(buffer.count).enumerated() { buffer[index] = byte }
            return bytes.count
        }
        self.readAnswer = readAnswer
    }

    // MARK: Writing text

    /// Writes `text` to standard output.
    @discardableResult
    public func standardOutput(_ text: String) -> Bool { write(Array(text.utf8), .output) }

    /// Writes `text` to standard error.
    @discardableResult
    public func standardError(_ text: String) -> Bool { write(Array(text.utf8), .error) }
}

// MARK: - The process's own

extension Console {
    /// The process's standard streams and its controlling terminal.
    public static let live = Console(
        write: { bytes, stream in FileDescriptorText.write(bytes, to: descriptor(stream)) },
        isTerminal: { isatty(descriptor($0)) == 1 },
        size: {
            var size = winsize()
            guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 else { return nil }
            return (Int(size.ws_col), Int(size.ws_row))
        },
        readInput: { limit throws(TextInputError) in try StandardInputText.read(limit: limit) },
        readSecret: { PasswordPrompt.read(prompt: $0) },
        readSecretBytes: { PasswordPrompt.read(prompt: $0, into: $1) },
        readAnswer: { PasswordPrompt.read(prompt: $0, echo: true) })

    private static func descriptor(_ stream: Stream) -> Int32 {
        switch stream {
        case .input: STDIN_FILENO
        case .output: STDOUT_FILENO
        case .error: STDERR_FILENO
        }
    }

    /// A reader that closes the pipe early (`q` in the pager, `shelf books | head -1`)
    /// must not kill the program with SIGPIPE: ignored, the write fails with EPIPE
    /// instead, which `write` takes as "nobody reads the rest". The process's choice,
    /// made once by its `main.swift`.
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }
}

// MARK: - FileDescriptorText

/// Whole writes to a descriptor.
public enum FileDescriptorText {
    /// Writes all of `bytes`, retrying short writes and interruptions. A reader that went
    /// away ends the write quietly: with SIGPIPE ignored (`Console.ignoreBrokenPipes`)
    /// the write fails with EPIPE and the rest is dropped.
    @discardableResult
    public static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var rest = bytes[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            rest = rest.dropFirst(written)
        }
        return true
    }
}
