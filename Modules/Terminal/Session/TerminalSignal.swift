#if canImport(Glibc)
import Glibc
#endif

// MARK: - TerminalSignal

/// A signal that ends a session: SIGTERM, SIGHUP (the terminal went away), SIGINT and
/// SIGQUIT sent from outside (from the keyboard they are keys: `RawMode`).
public struct TerminalSignal: Hashable, Sendable, CustomStringConvertible {
    public let number: Int32

    public init(number: Int32) {
        self.number = number
    }

    public static let terminate = TerminalSignal(number: SIGTERM)
    public static let hangup = TerminalSignal(number: SIGHUP)
    public static let interrupt = TerminalSignal(number: SIGINT)
    public static let quit = TerminalSignal(number: SIGQUIT)

    /// The signals a session ends on.
    static let ending: [TerminalSignal] = [.terminate, .hangup, .interrupt, .quit]

    /// The shell's convention for a process a signal ended: 128 + the signal's number.
    public var exitStatus: Int32 { 128 + number }

    public var description: String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGINT: "SIGINT"
        case SIGQUIT: "SIGQUIT"
        default: "signal \(number)"
        }
    }

    /// Ends the process by this signal with its default action, after the terminal was
    /// restored, so the parent sees how it ended (a shell reports `128 + n`); exits with
    /// `exitStatus` should the signal not end it.
    public func reraise() -> Never {
        signal(number, SIG_DFL)
        SignalMask.unblocked(number) { _ = raise(number) }
        exit(exitStatus)
    }
}

// MARK: - SignalMask

enum SignalMask {
    /// Runs `body` with `number` unblocked on this thread, then puts the mask back.
    /// NB: libdispatch blocks the signals it watches on its own threads (it reads them
    /// through `signalfd`), so `raise` from such a thread would only leave it pending.
    static func unblocked(_ number: Int32, _ body: () -> Void) {
        var only = sigset_t()
        var previous = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, number)
        pthread_sigmask(SIG_UNBLOCK, &only, &previous)
        body()
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }
}
