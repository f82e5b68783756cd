import Domain
import Foundation
import Sync

// MARK: - SyncRunScreen

/// One sync run as `shelf sync` reports it when it ends: what each collection pulled
/// and pushed, and how the run ended, in one sentence.
public struct SyncRunScreen: RenderableScreen, Hashable {
    /// One collection's counts, as JSON carries them.
    public struct Counts: Encodable, Hashable, Sendable {
        public let pulled: Int
        public let deletedLocally: Int
        public let pushed: Int
        public let merged: Int
        public let conflicts: Int
        public let deadLetters: Int
        /// Records over the size limit: skipped, never stored.
        public let skipped: Int
        /// An encrypted account's refusals: records that did not open, versions the server
        /// put back, records in the clear, deletions the server made alone (docs/encryption.md).
        public let refused: Int
        public let rolledBack: Int
        public let inTheClear: Int
        public let deletedByServer: Int

        init(_ report: CollectionReport) {
            pulled = report.pulled
            deletedLocally = report.deletedLocally
            pushed = report.pushed
            merged = report.merged
            conflicts = report.conflicts
            deadLetters = report.deadLetters
            skipped = report.skipped
            refused = report.refused
            rolledBack = report.rolledBack
            inTheClear = report.inTheClear
            deletedByServer = report.deletedByServer
        }
    }

    public let account: String
    /// `synced`, `needs_attention`, `backoff`, `temporary_failure`, `authentication_failed`,
    /// `local_store_failure`, `configuration_error` or `already_running`.
    public let outcome: String
    public let message: String
    public let startedAt: String
    public let durationMilliseconds: Int
    public let requests: Int
    public let backoffUntil: String?
    /// By collection name.
    public let collections: [String: Counts]
    /// Collections the server refused this run (403/404), by name, with why.
    public let unavailable: [String: String]
    /// What the run did with an encrypted account's keyring, when it did something.
    public let keyring: String?
    private let runOutcome: RunOutcome
    /// Text without the closing sentence: a run that did not sync everything says why in
    /// an `Error:` line on standard error instead (`failure`).
    private var tableOnly = false

    public init(_ report: RunReport) {
        account = report.account
        runOutcome = report.outcome
        outcome = report.outcome.rawValue
        message = report.message
        startedAt = Wording.timestamp(report.startedAt)
        durationMilliseconds = report.durationMilliseconds
        requests = report.requests
        backoffUntil = report.backoffUntil.map(Wording.timestamp)
        collections = report.collections.mapValues(Counts.init)
        unavailable = report.unavailable
        keyring = report.keyring
    }

    // MARK: Failure

    /// The sentence after `Error:` for a run that did not sync everything (its status is
    /// not 0): the cause once, with its hint; nil for a synced run.
    public var failure: String? {
        switch runOutcome {
        case .synced, .rested: nil
        case .needsAttention: "not everything synced: \(message) (\(took)); the rest synced"
        case .alreadyRunning: message
        case .backoff, .temporaryFailure, .authenticationFailed, .localStoreFailure, .configurationError: "not synced: \(message)"
        }
    }

    /// The same screen whose text is only the table of what each collection did (JSON
    /// unchanged): results for standard output, when `failure` goes to standard error.
    public var withoutSummary: SyncRunScreen {
        var copy = self
        copy.tableOnly = true
        return copy
    }

    /// Whether any collection pulled, pushed or settled anything: a run that failed before
    /// it did has no table to show, only its `Error:` line.
    public var didSomething: Bool {
        collections.values.contains { counts in
            counts.pulled + counts.deletedLocally + counts.pushed + counts.merged + counts.conflicts + counts.deadLetters + counts.skipped > 0
        }
    }

    // MARK: Text

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        if !collections.isEmpty {
            var table = TextTable([.init("COLLECTION"), .init("PULLED", .right), .init("DELETED", .right), .init("PUSHED", .right),
                                   .init("MERGED", .right), .init("CONFLICTS", .right), .init("FAILED", .right)])
            for name in orderedNames {
                guard let counts = collections[name] else { continue }
                table.append([.init(name), .init(String(counts.pulled)), .init(String(counts.deletedLocally)),
                              .init(String(counts.pushed)), .init(String(counts.merged)),
                              .init(String(counts.conflicts), counts.conflicts > 0 ? .warning : nil),
                              .init(String(counts.deadLetters), counts.deadLetters > 0 ? .error : nil)])
            }
            text.table(table)
        }
        if !tableOnly { text.line(summary, role) }
        return text.text
    }

    /// Collections in the order Shelf syncs them, then any other name.
    private var orderedNames: [String] {
        let known = CollectionName.allCases.map(\.rawValue).filter { collections[$0] != nil }
        return known + collections.keys.filter { !known.contains($0) }.sorted()
    }

    private var took: String {
        String(format: "%.2f s", Double(durationMilliseconds) / 1000) + ", " + Wording.count(requests, "request")
    }

    private var summary: String {
        switch runOutcome {
        case .synced where message != "synced" && message.hasPrefix("synced; "):
            // An optional collection the server lacks: synced, with the reason as a warning.
            "Synced account \(account), but \(message.dropFirst("synced; ".count)) (\(took))."
        case .synced: "Synced account \(account) (\(took))."
        case .rested: message.prefix(1).uppercased() + message.dropFirst() + "."
        case .needsAttention: "Synced account \(account), but \(message) (\(took))."
        case .alreadyRunning: message
        case .backoff, .temporaryFailure, .authenticationFailed, .localStoreFailure, .configurationError:
            "Not synced: \(message)"
        }
    }

    private var role: TextStyle.Role {
        switch runOutcome {
        case .synced where message.hasPrefix("synced; "): .warning
        case .synced: .positive
        case .rested: .quiet
        case .needsAttention, .alreadyRunning, .backoff: .warning
        case .temporaryFailure, .authenticationFailed, .localStoreFailure, .configurationError: .error
        }
    }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey {
        case account, outcome, message, startedAt, durationMilliseconds, requests, backoffUntil, collections, unavailable
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(account, forKey: .account)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(message, forKey: .message)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(durationMilliseconds, forKey: .durationMilliseconds)
        try container.encode(requests, forKey: .requests)
        try container.encode(backoffUntil, forKey: .backoffUntil)
        try container.encode(collections, forKey: .collections)
        try container.encode(unavailable, forKey: .unavailable)
    }
}
