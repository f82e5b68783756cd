import Foundation
import Sync

// MARK: - StoreDoctorScreen

/// `shelf doctor`: what SQLite's full check found in the account's store, what waits
/// in it, and what to do when it is damaged.
public struct StoreDoctorScreen: RenderableScreen, Hashable {
    public let store: String
    /// `healthy`, `damaged` or `missing`.
    public let state: String
    public let problems: [String]
    public let schemaVersion: Int?
    public let sizeBytes: Int
    public let pendingChanges: Int?
    public let conflicts: Int?
    public let deadLetters: Int?
    public let lastCheckedAt: String?
    public let advice: String?

    public init(_ diagnosis: StoreDiagnosis) {
        store = diagnosis.path
        state = !diagnosis.exists ? "missing" : diagnosis.isHealthy ? "healthy" : "damaged"
        problems = diagnosis.problems
        schemaVersion = diagnosis.schemaVersion
        sizeBytes = diagnosis.sizeBytes
        pendingChanges = diagnosis.pendingChanges
        conflicts = diagnosis.conflicts
        deadLetters = diagnosis.deadLetters
        lastCheckedAt = diagnosis.lastCheckedAt.map(Wording.timestamp)
        advice = diagnosis.advice
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        switch state {
        case "missing":
            text.line("No local store yet at \(store): nothing to check.", .quiet)
        case "healthy":
            text.line("Store \(store): healthy (SQLite integrity_check found nothing; schema v\(schemaVersion ?? 0), \(Wording.count(sizeBytes, "byte"))).", .positive)
            if let pendingChanges, let conflicts, let deadLetters {
                text.line("Waiting: \(Wording.count(pendingChanges, "change")) to send, \(Wording.count(conflicts, "conflict")), "
                          + "\(Wording.count(deadLetters, "refused change")).")
            }
        default:
            text.line("Store \(store): DAMAGED. SQLite integrity_check found:", .error)
            for problem in problems { text.line("  \(problem)", .error) }
            if let advice { text.line(advice) }
        }
        return text.text
    }
}

// MARK: - StoreBackupScreen

/// `shelf backup FILE`: where the consistent copy went.
public struct StoreBackupScreen: RenderableScreen, Hashable {
    public let store: String
    public let backup: String
    public let sizeBytes: Int

    public init(_ summary: StoreBackupSummary) {
        store = summary.store
        backup = summary.file
        sizeBytes = summary.sizeBytes
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        text.line("Backed up \(store) to \(backup) (\(Wording.count(sizeBytes, "byte")), checked).", .positive)
        return text.text
    }
}

// MARK: - StoreRestoreScreen

/// `shelf restore FILE`: which backup is now the store, and where the old store went.
public struct StoreRestoreScreen: RenderableScreen, Hashable {
    public let store: String
    public let backup: String
    public let replacedStore: String?

    public init(_ summary: StoreRestoreSummary) {
        store = summary.store
        backup = summary.backup
        replacedStore = summary.replacedStore
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        text.line("Restored \(store) from \(backup) (checked).", .positive)
        if let replacedStore { text.line("The replaced store was kept as \(replacedStore).") }
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case store, backup, replacedStore }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(store, forKey: .store)
        try container.encode(backup, forKey: .backup)
        try container.encode(replacedStore, forKey: .replacedStore)
    }
}

extension StoreDoctorScreen {
    private enum CodingKeys: String, CodingKey {
        case store, state, problems, schemaVersion, sizeBytes, pendingChanges, conflicts, deadLetters, lastCheckedAt, advice
    }

    /// Every key present, null when empty.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(store, forKey: .store)
        try container.encode(state, forKey: .state)
        try container.encode(problems, forKey: .problems)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(sizeBytes, forKey: .sizeBytes)
        try container.encode(pendingChanges, forKey: .pendingChanges)
        try container.encode(conflicts, forKey: .conflicts)
        try container.encode(deadLetters, forKey: .deadLetters)
        try container.encode(lastCheckedAt, forKey: .lastCheckedAt)
        try container.encode(advice, forKey: .advice)
    }
}
