import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// MARK: - TerminalSession

/// The terminal, taken for a full-screen interface and given back as it was found.
///
/// Opening one enters raw mode (`RawMode`), the alternate screen, hides the cursor and
/// turns bracketed paste on. The terminal is restored on every way out: `close()` (which
/// `run` calls after its body returns or throws), the event stream's cancellation, a
/// SIGTERM, SIGHUP, SIGINT or SIGQUIT (restored, then `.terminate` is the last event),
/// and the end of input. Ctrl-Z and SIGTSTP restore it, stop the process, and take it
/// again on return (`suspend()`); SIGCONT after a stop from outside takes it again.
/// Either way the last frame is redrawn whole and `.redrawRequested` is sent. SIGWINCH
/// reads the new size and sends `.resize`.
///
/// All state sits behind one lock, so the signal queue, the input thread and the caller's
/// actor can each draw, suspend or close without racing.
public final class TerminalSession: Sendable {
    // MARK: Configuration

    public struct Configuration: Sendable {
        public var input: Int32
        public var output: Int32
        /// `TERM` and `NO_COLOR` are read from here.
        public var environment: [String: String]
        /// `--color auto|always|never`.
        public var color: ColorChoice
        /// How long a lone ESC waits for the rest of a sequence before it is the Escape key.
        public var escapeDelay: Duration
        /// How long an open bracketed paste waits for more bytes before it ends.
        public var pasteDelay: Duration
        public var limits: KeyDecoder.Limits
        /// Whether process signals are watched (SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP,
        /// SIGCONT, SIGWINCH). Tests on a pseudo-terminal turn it off: dispositions are
        /// process-wide.
        public var handlesSignals: Bool
        /// Whether Ctrl-Z suspends, as it does in a shell; off, it is `.control("z")`.
        public var suspendsOnControlZ: Bool

        public init(
            input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, environment: [String: String],
            color: ColorChoice = .auto, escapeDelay: Duration = .milliseconds(30), pasteDelay: Duration = .milliseconds(500),
            limits: KeyDecoder.Limits = .init(), handlesSignals: Bool = true, suspendsOnControlZ: Bool = true
        ) {
            self.input = input
            self.output = output
            self.environment = environment
            self.color = color
            self.escapeDelay = escapeDelay
            self.pasteDelay = pasteDelay
            self.limits = limits
            self.handlesSignals = handlesSignals
            self.suspendsOnControlZ = suspendsOnControlZ
        }
    }

    // MARK: State

    private enum Phase { case showing, suspended, handedOver, closed }

    private struct State {
        var phase: Phase = .showing
        var writer: ScreenWriter
        var size: TerminalSize
        var reader: InputReader?
        var signals: TerminalSignals?
    }

    public let configuration: Configuration
    public let colorMode: ColorMode
    /// Keys, pastes, resizes, redraw requests and the terminating signal, in order; ends
    /// when the session closes. One consumer; cancelling it closes the session.
    public let events: AsyncStream<TerminalEvent>
    private let continuation: AsyncStream<TerminalEvent>.Continuation
    private let rawMode: RawMode
    private let state: Mutex<State>

    // MARK: Opening

    /// Takes the terminal, or refuses with a message the CLI shows before exiting 64.
    /// - Throws: `TerminalError` `.notATerminal` (input or output is a pipe or a file),
    ///   `.unsupportedTerminal` (`TERM` dumb or unset), `.systemCall`.
    public static func open(_ configuration: Configuration) throws(TerminalError) -> TerminalSession {
        guard isatty(configuration.input) == 1 else { throw .notATerminal("standard input") }
        guard isatty(configuration.output) == 1 else { throw .notATerminal("standard output") }
        let term = configuration.environment["TERM"]
        guard let term, !term.isEmpty, term != "dumb" else { throw .unsupportedTerminal(term) }
        let session = try TerminalSession(configuration, rawMode: RawMode.enter(on: configuration.input))
        do {
            try session.start()
        } catch {
            session.close()
            throw error
        }
        return session
    }

    /// Opens a session, runs `body`, and closes the session however `body` ends.
    public static func run<T>(
        _ configuration: Configuration, isolation: isolated (any Actor)? = #isolation,
        _ body: (TerminalSession) async throws -> T
    ) async throws -> T {
        let session = try open(configuration)
        do {
            let value = try await body(session)
            session.close()
            return value
        } catch {
            session.close()
            throw error
        }
    }

    private init(_ configuration: Configuration, rawMode: RawMode) {
        self.configuration = configuration
        self.rawMode = rawMode
        let policy = OutputPolicy(isTerminal: true, terminalColumns: nil, terminalRows: nil, environment: configuration.environment)
        colorMode = ColorMode(configuration.color, policy: policy)
        (events, continuation) = AsyncStream.makeStream(of: TerminalEvent.self, bufferingPolicy: .bufferingOldest(1_024))
        state = Mutex(State(writer: ScreenWriter(colorMode: colorMode), size: Self.size(of: configuration.output)))
    }

    private func start() throws(TerminalError) {
        write(ControlSequence.enter)
        continuation.onTermination = { [weak self] _ in self?.close() }
        let reader = try makeReader()
        let signals = configuration.handlesSignals ? watchSignals() : nil
        state.withLock { state in
            state.reader = reader
            state.signals = signals
        }
        reader.start()
    }

    private func makeReader() throws(TerminalError) -> InputReader {
        try InputReader(
            descriptor: configuration.input,
            delays: .init(escape: configuration.escapeDelay, paste: configuration.pasteDelay),
            limits: configuration.limits,
            onInput: { [weak self] inputs in self?.received(inputs) },
            onEnd: { [weak self] in self?.close(endedBy: .hangup) })
    }

    private func watchSignals() -> TerminalSignals {
        var handlers: [Int32: @Sendable () -> Void] = [
            SIGTSTP: { [weak self] in self?.suspend() },
            SIGCONT: { [weak self] in self?.continued() },
            SIGWINCH: { [weak self] in self?.resized() },
        ]
        for ending in TerminalSignal.ending {
            handlers[ending.number] = { [weak self] in self?.close(endedBy: ending) }
        }
        return TerminalSignals(handlers)
    }

    // MARK: Drawing

    /// The terminal's size now (as of the last SIGWINCH).
    public var size: TerminalSize { state.withLock { $0.size } }

    /// Shows `frame`, writing only what changed since the last one; does nothing while
    /// suspended or after the session closed.
    public func draw(_ frame: Frame) {
        state.withLock { state in
            guard state.phase == .showing else { return }
            Self.write(state.writer.output(for: frame), to: configuration.output)
        }
    }

    // MARK: Suspending

    /// Ctrl-Z: the terminal restored, the process stopped with SIGTSTP's default action
    /// (the shell takes over), and, once continued, the terminal taken again, the last
    /// frame redrawn whole and `.redrawRequested` sent. Blocks its thread while stopped.
    public func suspend() {
        let left = state.withLock { state -> Bool in
            guard state.phase == .showing else { return false }
            leave()
            state.phase = .suspended
            return true
        }
        guard left else { return }
        let previous = signal(SIGTSTP, SIG_DFL)
        SignalMask.unblocked(SIGTSTP) { _ = raise(SIGTSTP) }
        signal(SIGTSTP, previous)
        takeAgain(from: .suspended)
    }

    // MARK: Handing over

    /// Lends the terminal to another program while `body` runs — an editor, on this same
    /// terminal: the terminal restored as it was and its input left unread (the reader
    /// stopped, so no key meant for the editor is taken), then taken again, the last frame
    /// redrawn whole and `.redrawRequested` sent. Blocks its thread while `body` runs.
    /// A session that is not showing (closed by a signal, suspended) just runs `body`.
    public func handOver<T>(_ body: () throws -> T) rethrows -> T {
        let lent = state.withLock { state -> InputReader?? in
            guard state.phase == .showing else { return .none }
            leave()
            state.phase = .handedOver
            defer { state.reader = nil }
            return .some(state.reader)
        }
        guard let reader = lent else { return try body() }
        reader?.stopAndWait()
        defer { takeBack() }
        return try body()
    }

    /// After `handOver`: a new reader, the settings and the screen taken again. A session
    /// closed meanwhile (a signal while the editor ran) stays closed; a reader that cannot
    /// be made closes it, as an ended terminal does.
    private func takeBack() {
        let reader = try? makeReader()
        let retaken = state.withLock { state -> Bool in
            guard state.phase == .handedOver, let reader else { return false }
            try? rawMode.reapply()
            Self.write(Array(ControlSequence.enter.utf8) + state.writer.redrawShown(), to: configuration.output)
            state.reader = reader
            state.phase = .showing
            return true
        }
        guard retaken, let reader else {
            if reader == nil { close(endedBy: .hangup) }
            return
        }
        reader.start()
        continuation.yield(.redrawRequested)
    }

    /// SIGCONT: after a stop this session did not make itself (SIGSTOP from outside), the
    /// shell may have changed the settings and drawn on the screen; take both again.
    private func continued() {
        takeAgain(from: .showing)
    }

    private func takeAgain(from phase: Phase) {
        let retaken = state.withLock { state -> Bool in
            guard state.phase == phase else { return false }
            try? rawMode.reapply()
            Self.write(Array(ControlSequence.enter.utf8) + state.writer.redrawShown(), to: configuration.output)
            state.phase = .showing
            return true
        }
        if retaken { continuation.yield(.redrawRequested) }
    }

    private func resized() {
        let size = state.withLock { state in
            state.size = Self.size(of: configuration.output)
            state.writer.invalidate()
            return state.size
        }
        continuation.yield(.resize(size))
    }

    // MARK: Closing

    /// Restores the terminal and ends the event stream; idempotent, and safe from any thread.
    public func close() {
        close(endedBy: nil)
    }

    private func close(endedBy signal: TerminalSignal?) {
        let taken = state.withLock { state -> (InputReader?, TerminalSignals?)? in
            guard state.phase != .closed else { return nil }
            if state.phase == .showing { leave() }
            state.phase = .closed
            defer { (state.reader, state.signals) = (nil, nil) }
            return (state.reader, state.signals)
        }
        guard let (reader, signals) = taken else { return }
        signals?.cancel()
        reader?.stop()
        if let signal { continuation.yield(.terminate(signal)) }
        continuation.finish()
    }

    /// The terminal as it was: the screen, the cursor, paste mode, then the settings (after
    /// the output has drained). Called with the lock held.
    private func leave() {
        write(ControlSequence.leave)
        try? rawMode.restore()
    }

    // MARK: Input

    private func received(_ inputs: [TerminalInput]) {
        for input in inputs {
            switch input {
            case .key(.control("z")) where configuration.suspendsOnControlZ:
                suspend()
            case .key(let key):
                continuation.yield(.key(key))
            case .paste(let text):
                continuation.yield(.paste(text))
            }
        }
    }

    // MARK: System

    private func write(_ text: String) {
        Self.write(Array(text.utf8), to: configuration.output)
    }

    /// Writes all of `bytes`, through partial writes and interruptions; gives up on an
    /// error (the terminal is gone, and nothing could show a message).
    static func write(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// `TIOCGWINSZ`; 80 × 24 when the terminal cannot say.
    static func size(of descriptor: Int32) -> TerminalSize {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else {
            return TerminalSize(rows: 24, columns: 80)
        }
        return TerminalSize(rows: Int(size.ws_row), columns: Int(size.ws_col))
    }
}
