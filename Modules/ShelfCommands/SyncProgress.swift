import Domain
import Foundation
import Sync

// MARK: - SyncProgress

/// Draws a sync run as it happens, from its `SyncEvent`s: on a terminal, one bar redrawn
/// in place (collections pulled out of all, and what is happening now); on a pipe or
/// file, one plain line per event (`SyncEvent.summary`), for logs. Nothing with
/// `--json` or `--quiet`.
///
/// The bar moves the cursor with a carriage return only; colour (the filled part, in
/// green) only when colour is allowed.
@MainActor
final class SyncProgress {
    enum Style {
        case bar(color: Bool)
        case lines
        case silent
    }

    private let style: Style
    private let terminal: Terminal
    private var total = 0
    /// Collections whose pull has finished: those before the one pulling now.
    private var done = 0
    private var started: Set<CollectionName> = []
    private var activity = "starting"
    private var drawnWidth = 0

    init(output: Output) {
        terminal = output.terminal
        if output.isJSON || output.quiet {
            style = .silent
        } else if output.terminal.stdoutIsTerminal {
            style = .bar(color: output.terminal.colorsStandardOutput)
        } else {
            style = .lines
        }
    }

    func handle(_ event: SyncEvent) {
        switch event {
        case .runStarted(let collections):
            total = collections.count
        case .collectionStarted(let collection):
            // NB: a collection is done pulling when the next one starts.
            if started.insert(collection).inserted { done = started.count - 1 }
        case .runFinished:
            done = total
        default:
            break
        }
        if let step = Self.activity(event) { activity = step }
        switch event {
        case .runFinished:
            break
        case .conflict, .deadLettered, .retrying, .collectionUnavailable, .discardedLocalChange, .serverForgot, .recordSkipped, .recordRefused:
            line(event.summary, always: true)
        default:
            line(event.summary)
        }
        drawBar()
    }

    /// What a run is doing as of `event`, in a few words (the bar's, and `shelf ui`'s
    /// status line); nil for an event that does not change it.
    nonisolated static func activity(_ event: SyncEvent) -> String? {
        switch event {
        case .runStarted: "connecting"
        case .collectionStarted(let collection): "\(collection.rawValue): pulling"
        case .notModified(let collection): "\(collection.rawValue): up to date"
        case .pageApplied(let collection, let counts): "\(collection.rawValue): \(counts.totalSoFar) pulled"
        case .pushed(let collection, let count): "\(collection.rawValue): pushed \(count)"
        case .retrying: "retrying"
        case .collectionUnavailable(let collection, _): "\(collection.rawValue): unavailable"
        case .reconciled(let collection, _): "\(collection.rawValue): compared with the server"
        case .runFinished, .merged, .conflict, .deadLettered, .collectionFinished, .discardedLocalChange, .serverForgot,
             .reuploading, .recordSkipped, .recordRefused, .keyringRefused, .lateRecords, .writeOverwritten:
            nil
        }
    }

    /// Clears the bar, so the summary starts on a clean line.
    func finish() {
        guard case .bar = style, drawnWidth > 0 else { return }
        terminal.writeOut("\r" + String(repeating: " ", count: drawnWidth) + "\r")
        drawnWidth = 0
    }

    // MARK: Drawing

    /// A plain line on a pipe; on a terminal, only lines that must stay (`always`),
    /// printed above the bar.
    private func line(_ raw: String, always: Bool = false) {
        // NB: a summary can carry a server's words (a refusal's reason, a retried error).
        let text = TerminalEscaping.escaped(raw)
        switch style {
        case .lines:
            terminal.writeOut("sync: \(text)\n")
        case .bar where always:
            finish()
            terminal.writeOut("\(text)\n")
        case .bar, .silent:
            break
        }
    }

    private func drawBar() {
        guard case .bar(let color) = style else { return }
        let slots = 20
        let filled = total == 0 ? 0 : min(slots, slots * done / total)
        let bar = String(repeating: "#", count: filled), rest = String(repeating: "-", count: slots - filled)
        let text = " \(done)/\(total) \(activity)"
        let width = min(terminal.columns - 1, slots + 2 + text.count)
        let plain = String(("[" + bar + rest + "]" + text).prefix(width))
        let shown = color && filled > 0 ? plain.replacingOccurrences(of: "[" + bar, with: "[\u{1B}[32m" + bar + "\u{1B}[0m") : plain
        let padding = String(repeating: " ", count: max(0, drawnWidth - plain.count))
        terminal.writeOut("\r" + shown + padding)
        drawnWidth = plain.count
    }
}
