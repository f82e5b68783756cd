import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// MARK: - TerminalSignals

/// The signals a session watches, each delivered to a handler on one serial queue.
///
/// Each signal is first set to SIG_IGN, so its default action (ending or stopping the
/// process) never fires while it is watched, and is then read by a
/// `DispatchSource.makeSignalSource`: the handlers run as ordinary code on a queue, never
/// inside a C signal handler, so they may take locks, write and call `tcsetattr`.
/// `cancel()` puts back each signal's disposition as it was found (SIG_IGN under `nohup`).
final class TerminalSignals: Sendable {
    let queue = DispatchQueue(label: "shelf.terminal.signals")
    private let watched: Mutex<[Watched]>

    private struct Watched {
        let number: Int32
        let source: any DispatchSourceSignal
        let previous: __sighandler_t?
    }

    init(_ handlers: [Int32: @Sendable () -> Void]) {
        var watched: [Watched] = []
        for (number, handler) in handlers.sorted(by: { $0.key < $1.key }) {
            let previous = signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: handler)
            source.resume()
            watched.append(Watched(number: number, source: source, previous: previous))
        }
        self.watched = Mutex(watched)
    }

    /// Stops watching; idempotent.
    func cancel() {
        let watched = self.watched.withLock { watched in
            defer { watched = [] }
            return watched
        }
        for entry in watched {
            entry.source.cancel()
            signal(entry.number, entry.previous)
        }
    }
}
