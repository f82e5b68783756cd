import Foundation
import Presentation
import Terminal

// MARK: - SyncStatusPane

/// The account's sync state from `SyncStatusViewModel`: the last good run, the changes
/// waiting, conflicts and failed changes (with the commands that settle them), a backoff
/// the server asked for, and the background sync's latest step when one runs.
@MainActor
struct SyncStatusPane {
    let model: SyncStatusViewModel?
    let syncLine: String?
    let isSyncing: Bool

    func draw(into frame: inout Frame, rows area: Range<Int>) {
        guard var row = area.first else { return }
        func line(_ label: String, _ value: String, _ style: Style = .plain) {
            guard row < area.upperBound else { return }
            frame.write(FittedText.fit(label, 18), row: row, column: 2, style: .bold)
            frame.write(value, row: row, column: 21, style: style)
            row += 1
        }
        frame.write("Sync", row: row, column: 2, style: .bold)
        row += 2
        guard let model else {
            frame.write("This account has no server: everything stays on this device.", row: row, column: 2, style: .dim)
            return
        }
        guard let status = model.status else {
            frame.write(model.isLoading ? "Reading the sync state…" : (model.errorMessage ?? "No sync state yet."),
                        row: row, column: 2, style: .dim)
            return
        }
        line("last good sync", status.lastSuccess.map(Self.stamp) ?? "never")
        line("waiting", status.pendingChanges == 0 ? "nothing" : "\(status.pendingChanges) change\(status.pendingChanges == 1 ? "" : "s") (shelf pending)")
        line("conflicts", status.conflicts == 0 ? "none" : "\(status.conflicts) to judge (shelf conflicts)", status.conflicts == 0 ? .plain : .bold)
        line("failed changes", status.deadLetters == 0 ? "none" : "\(status.deadLetters) refused (shelf failed)", status.deadLetters == 0 ? .plain : .bold)
        line("backoff", status.backoffUntil.map { "the server asked to wait until \(Self.stamp($0))" } ?? "none")
        if let error = status.lastError { line("last error", error, .bold) }
        row += 1
        line("now", isSyncing ? (syncLine ?? "Syncing…") : (syncLine ?? "idle; s syncs"))
    }

    /// A moment as UTC minutes, the same on every machine (and in the snapshots).
    static func stamp(_ date: Date) -> String {
        let utc = TimeZone(secondsFromGMT: 0) ?? .current
        let parts = Calendar(identifier: .gregorian).dateComponents(in: utc, from: date)
        let value = { (part: Int?) in String(format: "%02d", part ?? 0) }
        return "\(parts.year ?? 0)-\(value(parts.month))-\(value(parts.day)) \(value(parts.hour)):\(value(parts.minute)) UTC"
    }
}
