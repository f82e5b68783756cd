import Domain
import Foundation
import Presentation
import Sync

// MARK: - SyncStatusScreen

/// The sync status as `shelf status` shows it. Timestamps are ISO 8601 in UTC; how
/// long a backoff still runs is measured from the `now` the app passes in, so the
/// output is the same for the same inputs.
public struct SyncStatusScreen: RenderableScreen, Hashable {
    /// The status fields, as JSON carries them.
    public struct Sync: Encodable, Hashable, Sendable {
        public let lastSuccess: String?
        public let pendingChanges: Int
        public let conflicts: Int
        public let deadLetters: Int
        public let backoffUntil: String?
        /// Whether the backoff runs past `now`.
        public let backingOff: Bool
        /// Whole seconds of backoff left (rounded up); 0 when not backing off.
        public let backoffSecondsLeft: Int
        public let lastError: String?
        /// Ticks the worker still rests after idle runs (`shelf-sync --rest-when-idle`).
        public let restingTicks: Int

        init(_ status: SyncStatus, now: Date) {
            lastSuccess = status.lastSuccess.map(Wording.timestamp)
            pendingChanges = status.pendingChanges
            conflicts = status.conflicts
            deadLetters = status.deadLetters
            // NB: a deadline further out than a server may impose (written by an older
            // Shelf) is shown as the sync engine treats it: that maximum from now.
            let until = status.backoffUntil.map { min($0, now.addingTimeInterval(SyncOptions.maximumBackoff)) }
            backoffUntil = until.map(Wording.timestamp)
            let left = until.map { $0.timeIntervalSince(now) } ?? 0
            backingOff = left > 0
            backoffSecondsLeft = left > 0 ? Int(left.rounded(.up)) : 0
            lastError = status.lastError
            restingTicks = status.restingTicks
        }

        private enum CodingKeys: String, CodingKey {
            case lastSuccess, pendingChanges, conflicts, deadLetters, backoffUntil, backingOff,
                 backoffSecondsLeft, restingTicks, lastError
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(lastSuccess, forKey: .lastSuccess)
            try container.encode(pendingChanges, forKey: .pendingChanges)
            try container.encode(conflicts, forKey: .conflicts)
            try container.encode(deadLetters, forKey: .deadLetters)
            try container.encode(backoffUntil, forKey: .backoffUntil)
            try container.encode(backingOff, forKey: .backingOff)
            try container.encode(backoffSecondsLeft, forKey: .backoffSecondsLeft)
            try container.encode(restingTicks, forKey: .restingTicks)
            try container.encode(lastError, forKey: .lastError)
        }
    }

    public let state: ScreenStatus
    /// nil until the status has been read.
    public let sync: Sync?
    public let error: String?

    @MainActor
    public init(_ model: SyncStatusViewModel, now: Date) {
        state = ScreenStatus(model.state)
        sync = model.status.map { Sync($0, now: now) }
        error = model.errorMessage ?? model.state.failureMessage
    }

    // MARK: Text

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        text.list(
            status: state, hasValue: sync != nil, noun: "sync status",
            table: sync.map(table), empty: nil, summary: nil, error: error
        )
        // NB: a sentence under the table, wrapped rather than cut at a cell's edge: the
        // cause, the collections it hit, the request and the hint all stay readable.
        if let lastError = sync?.lastError { text.line("Last error: \(lastError)", .error) }
        return text.text
    }

    private func table(_ sync: Sync) -> TextTable {
        var table = TextTable([.init("FIELD"), .init("VALUE")])
        table.append("last sync", sync.lastSuccess ?? "never")
        table.append("pending", Wording.count(sync.pendingChanges, "change"))
        table.append([.init("conflicts"), .init(String(sync.conflicts), sync.conflicts > 0 ? .warning : nil)])
        table.append([.init("dead letters"), .init(String(sync.deadLetters), sync.deadLetters > 0 ? .warning : nil)])
        if sync.backingOff, let until = sync.backoffUntil {
            table.append([.init("backoff"), .init("until \(until) (\(sync.backoffSecondsLeft) s left)", .warning)])
        } else {
            table.append("backoff", "none")
        }
        // NB: only while the worker rests, so the status of a device that never does is as it was.
        if sync.restingTicks > 0 {
            let ticks = Wording.count(sync.restingTicks, "more tick")
            table.append("resting", "\(ticks); a local change goes at the next tick")
        }
        table.append([.init("last error"), sync.lastError == nil ? .init("none") : .init("below", .error)])
        return table
    }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey { case state, sync, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(sync, forKey: .sync)
        try container.encode(error, forKey: .error)
    }
}
