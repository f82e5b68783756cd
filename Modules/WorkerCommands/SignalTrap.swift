import Dispatch
import Foundation
import Glibc
import Synchronization

// MARK: - SignalTrap

/// Turns SIGTERM and SIGINT into cancelling the worker's task, so `--every` stops
/// between steps instead of dying inside one: the engine's steps are transactions, a
/// request in flight is abandoned, and the loop logs its last line and exits 0.
final class SignalTrap {
    private let sources: [any DispatchSourceSignal]
    private let received = Received()

    private final class Received: Sendable {
        let first = Mutex<Int32?>(nil)
    }

    init(signals: [Int32] = [SIGTERM, SIGINT], onSignal: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "shelf-sync.signals")
        var made: [any DispatchSourceSignal] = []
        for number in signals {
            // The default action (terminate) must not run: the source handles it.
            _ = Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            made.append(source)
        }
        sources = made
        for (source, number) in zip(sources, signals) {
            source.setEventHandler { [received] in
                received.first.withLock { $0 = $0 ?? number }
                onSignal(number)
            }
            source.resume()
        }
    }

    /// The first signal received, if any.
    var firstSignal: Int32? { received.first.withLock { $0 } }

    static func name(_ number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        default: "signal \(number)"
        }
    }
}
