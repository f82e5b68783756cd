#if canImport(Glibc)
import Glibc
#endif

// MARK: - TerminalError

/// Why the terminal could not be taken or set: a code to sort by and a message to show as
/// it is (the CLI prints it after `Error:` and exits 64 for a refusal to start).
public struct TerminalError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable {
        private let name: String

        /// Standard input or output is a pipe or a file.
        public static let notATerminal = Code(name: "notATerminal")
        /// `TERM` is `dumb` or unset: no cursor addressing to count on.
        public static let unsupportedTerminal = Code(name: "unsupportedTerminal")
        /// `tcgetattr`, `tcsetattr` or `pipe` failed (`errorNumber` says why).
        public static let systemCall = Code(name: "systemCall")
    }

    public let code: Code
    public let message: String
    /// The `errno` of a failed system call.
    public let errorNumber: Int32?

    public var description: String { message }

    // MARK: Cases

    static func notATerminal(_ stream: String) -> TerminalError {
        TerminalError(
            code: .notATerminal,
            message: "\(stream) is not a terminal; the full-screen interface needs one (the other commands work in a pipe)",
            errorNumber: nil)
    }

    static func unsupportedTerminal(_ term: String?) -> TerminalError {
        let named = term.map { $0.isEmpty ? "TERM is empty" : "TERM=\($0)" } ?? "TERM is not set"
        return TerminalError(
            code: .unsupportedTerminal,
            message: "\(named): this terminal cannot move the cursor, so the full-screen interface cannot run in it",
            errorNumber: nil)
    }

    static func systemCall(_ call: String, errorNumber: Int32) -> TerminalError {
        TerminalError(
            code: .systemCall, message: "\(call) failed: \(String(cString: strerror(errorNumber)))",
            errorNumber: errorNumber)
    }
}
