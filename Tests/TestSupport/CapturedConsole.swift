import ArgumentParsing
import Synchronization

// MARK: - CapturedConsole

/// A console for a program run in-process: it keeps what the program prints on each
/// stream, gives it `input` as standard input, and answers `isatty` and the terminal's
/// size as the test says (by default: no terminal at all, as a process with its streams
/// on files).
public final class CapturedConsole: Sendable {
    private let printed = Printed()
    private let input: [UInt8]
    private let terminals: Set<Console.Stream>
    private let terminalSize: (columns: Int, rows: Int)?
    private let answer: String?

    /// - Parameter answer: what the reader types when the program asks a question on the
    ///   terminal (`Console.readAnswer`); nil: the input ends.
    public init(
        input: String? = nil, terminals: Set<Console.Stream> = [], size: (columns: Int, rows: Int)? = nil, answer: String? = nil
    ) {
        self.input = Array((input ?? "").utf8)
        self.terminals = terminals
        terminalSize = size
        self.answer = answer
    }

    /// What was printed, in a class of its own so the console's closures can hold it.
    private final class Printed: Sendable {
        let bytes = Mutex<(output: [UInt8], error: [UInt8])>(([], []))
        /// The questions asked on the terminal (`Console.readAnswer`).
        let questions = Mutex<[String]>([])
    }

    /// The console to hand the program.
    public var console: Console {
        Console(
            write: { [printed] bytes, stream in
                printed.bytes.withLock {
                    switch stream {
                    case .output: $0.output += bytes
                    case .error: $0.error += bytes
                    case .input: break
                    }
                }
                return stream != .input
            },
            isTerminal: { [terminals] in terminals.contains($0) },
            size: { [terminalSize] in terminalSize },
            readInput: { [input] limit throws(TextInputError) in try StandardInputText.text(of: input, limit: limit) },
            readSecret: { _ in nil },
            readAnswer: { [printed, answer] prompt in
                printed.questions.withLock { $0.append(prompt) }
                return answer
            })
    }

    /// The questions the program asked on the terminal, in order.
    public var questions: [String] { printed.questions.withLock { $0 } }

    /// Everything printed on standard output so far.
    public var standardOutput: String { printed.bytes.withLock { String(decoding: $0.output, as: UTF8.self) } }
    /// Everything printed on standard error so far.
    public var standardError: String { printed.bytes.withLock { String(decoding: $0.error, as: UTF8.self) } }
}
