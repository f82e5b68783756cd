import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// MARK: - InputReader

/// Reads a terminal's input on a thread of its own and hands the decoded keys and pastes
/// on, so no actor (the main actor least of all) ever blocks on the keyboard.
///
/// Every wait ends: `poll` watches the terminal and a wake pipe, which `stop()` writes to.
/// A held ESC is settled after `escapeDelay` and an open paste after `pasteDelay`
/// (`KeyDecoder.idle()`). End of input or a read error (the terminal closed) calls `onEnd`.
final class InputReader: Sendable {
    struct Delays: Sendable {
        var escape: Duration
        var paste: Duration
    }

    private let descriptor: Int32
    private let delays: Delays
    private let limits: KeyDecoder.Limits
    private let onInput: @Sendable ([TerminalInput]) -> Void
    private let onEnd: @Sendable () -> Void
    /// The wake pipe, nil once the thread has closed it: `stop()` never writes to a
    /// descriptor number that may have been reused.
    private let wake: Mutex<(read: Int32, write: Int32)?>
    /// Signalled once the thread has ended.
    private let finished = DispatchSemaphore(value: 0)

    init(
        descriptor: Int32, delays: Delays, limits: KeyDecoder.Limits,
        onInput: @escaping @Sendable ([TerminalInput]) -> Void, onEnd: @escaping @Sendable () -> Void
    ) throws(TerminalError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .systemCall("pipe", errorNumber: errno) }
        self.descriptor = descriptor
        self.delays = delays
        self.limits = limits
        self.onInput = onInput
        self.onEnd = onEnd
        wake = Mutex((ends[0], ends[1]))
    }

    func start() {
        Thread.detachNewThread { [self] in
            run()
        }
    }

    /// Ends the thread's wait, and waits (at most `stopWait`) until the thread has read
    /// its last byte: what the terminal receives afterwards is left for another program.
    func stopAndWait() {
        stop()
        _ = finished.wait(timeout: .now() + .milliseconds(Int(Self.milliseconds(Self.stopWait))))
    }

    /// How long `stopAndWait` waits for the thread: it only has to see the wake pipe.
    static let stopWait: Duration = .seconds(2)

    /// Ends the thread's wait at once; idempotent.
    func stop() {
        wake.withLock { wake in
            guard let end = wake?.write else { return }
            var byte: UInt8 = 1
            _ = write(end, &byte, 1)
        }
    }

    // MARK: The loop

    private func run() {
        guard let wakeRead = wake.withLock({ $0?.read }) else { return }
        var decoder = KeyDecoder(limits: limits)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var endedByTerminal = false
        loop: while true {
            let timeout = decoder.isInPaste ? delays.paste : decoder.isHoldingBytes ? delays.escape : nil
            var watched = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&watched, 2, timeout.map(Self.milliseconds) ?? -1)
            if ready < 0 {
                if errno == EINTR { continue }
                endedByTerminal = true
                break
            }
            if ready == 0 {
                deliver(decoder.idle())
                continue
            }
            if watched[1].revents != 0 { break }
            guard watched[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            switch count {
            case 1...:
                deliver(decoder.decode(buffer.prefix(count)))
            case 0:
                endedByTerminal = true
                break loop
            default:
                if errno == EINTR || errno == EAGAIN { continue }
                endedByTerminal = true
                break loop
            }
        }
        deliver(decoder.idle())
        wake.withLock { wake in
            if let ends = wake {
                close(ends.read)
                close(ends.write)
            }
            wake = nil
        }
        finished.signal()
        if endedByTerminal { onEnd() }
    }

    private func deliver(_ inputs: [TerminalInput]) {
        if !inputs.isEmpty { onInput(inputs) }
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1_000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, total))
    }
}
