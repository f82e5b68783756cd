import Domain
import Foundation
import Sync

// MARK: - SyncProgress

/// Draws a sync run as it happens, from its `SyncEvent`s, on standard error (progress
/// is a diagnostic: standard output keeps the result, so `shelf sync | head` shows it).
/// When standard error is a terminal, one bar redrawn in place (collections pulled out
/// of all, and what is happening now); elsewhere nothing, unless `--progress` asks for
/// one plain line per event (`SyncEvent.summary`), for logs. Nothing with `--json` or
/// `--quiet` unless `--progress` asks. Events a reader must hear of (a conflict, a retry,
/// a collection the server refuses…) are `Warning:` lines whatever the stream, except
/// with `--json`, whose report counts them.
///
/// The bar moves the cursor with a carriage return only; colour (the filled part, in
/// green) only when standard error may be coloured.
@MainActor
final class SyncProgress {
    enum Style {
        case bar(color: Bool)
        case lines
        /// No progress; `warns` still prints the events that must be heard of.
        case silent(warns: Bool)
    }

    private let style: Style
    private let terminal: Terminal
    private let output: Output
    private var total = 0
    /// Collections whose pull has finished: those before the one pulling now.
    private var done = 0
    private var started: Set<CollectionName> = []
    private var activity = "starting"
    private var drawnWidth = 0

    init(output: Output) {
        self.output = output
        terminal = output.terminal
        style = Self.style(
            stderrIsTerminal: output.terminal.stderrIsTerminal, color: output.terminal.colorsStandardError,
            json: output.isJSON, quiet: output.quiet, forced: output.progress)
    }

    /// What a run shows on standard error: the bar on a terminal, lines with `--progress`
    /// off one, and otherwise only the events that must be heard of (none with `--json`).
    nonisolated static func style(stderrIsTerminal: Bool, color: Bool, json: Bool, quiet: Bool, forced: Bool) -> Style {
        if forced { return stderrIsTerminal ? .bar(color: color) : .lines }
        if json || quiet { return .silent(warns: !json) }
        return stderrIsTerminal ? .bar(color: color) : .silent(warns: true)
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
             .reuploading, .recordSkipped, .recordRefused, .keyringRefused, .historyDistrusted, .lateRecords, .writeOverwritten:
            nil
        }
    }

    /// Clears the bar, so what follows starts on a clean line.
    func finish() {
        guard case .bar = style, drawnWidth > 0 else { return }
        terminal.writeErr("\r" + String(repeating: " ", count: drawnWidth) + "\r")
        drawnWidth = 0
    }

    // MARK: Drawing

    /// A plain line with `--progress` off a terminal; elsewhere only the lines that must
    /// stay (`always`), as warnings (above the bar on a terminal).
    private func line(_ raw: String, always: Bool = false) {
        switch style {
        case .lines:
            // NB: a summary can carry a server's words (a refusal's reason, a retried error).
            terminal.writeErr("sync: \(TerminalEscaping.escaped(raw))\n")
        case .bar where always, .silent(warns: true) where always:
            finish()
            output.warn(raw)
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
        let width = min(terminal.columns - 1, slots + 2 + DisplayColumns.of(text))
        let plain = DisplayColumns.prefix("[" + bar + rest + "]" + text, fitting: width)
        let plainWidth = DisplayColumns.of(plain)
        let shown = color && filled > 0 ? plain.replacingOccurrences(of: "[" + bar, with: "[\u{1B}[32m" + bar + "\u{1B}[0m") : plain
        let padding = String(repeating: " ", count: max(0, drawnWidth - plainWidth))
        terminal.writeErr("\r" + shown + padding)
        drawnWidth = plainWidth
    }
}
