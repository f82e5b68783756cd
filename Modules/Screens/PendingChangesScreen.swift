import Domain
import Foundation
import Sync

// MARK: - PendingChangesScreen

/// The changes the server has not acknowledged yet (`shelf pending`), the least recently
/// changed first, so the last line is what `shelf undo` takes back.
public struct PendingChangesScreen: RenderableScreen, Hashable {
    public struct Entry: Encodable, Hashable, Sendable {
        public let collection: String
        public let id: String
        /// `create`, `update` or `delete`: what the server is told.
        public let change: String
        public let title: String?
        /// When the record was first changed since its last sync.
        public let since: String
        /// When it was last changed.
        public let changedAt: String
        /// `waiting` (undo can take it back), `sent` (answer not known yet) or `conflict`.
        public let state: String

        init(_ change: UnsyncedChange) {
            collection = change.collection.rawValue
            id = change.recordID
            self.change = change.change.rawValue
            title = change.label
            since = Wording.timestamp(change.since)
            changedAt = Wording.timestamp(change.changedAt)
            state = change.state.rawValue
        }

        private enum CodingKeys: String, CodingKey { case collection, id, change, title, since, changedAt, state }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(collection, forKey: .collection)
            try container.encode(id, forKey: .id)
            try container.encode(change, forKey: .change)
            try container.encode(title, forKey: .title)
            try container.encode(since, forKey: .since)
            try container.encode(changedAt, forKey: .changedAt)
            try container.encode(state, forKey: .state)
        }
    }

    public let changes: [Entry]
    private let shortIDs: ShortIDs

    /// - Parameter shortIDs: the prefixes the table shows for the records' ids, as every
    ///   other table does (`--json` keeps full ids).
    public init(_ changes: [UnsyncedChange], shortIDs: ShortIDs = .full) {
        self.changes = changes.map(Entry.init)
        self.shortIDs = shortIDs
    }

    /// The ids the table shows, per collection, for working out their short forms.
    public static func idsShown(by changes: [UnsyncedChange]) -> [(CollectionName, [String])] {
        Dictionary(grouping: changes, by: \.collection).map { ($0.key, $0.value.map(\.recordID)) }
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        guard !changes.isEmpty else {
            text.line("No unsynced changes.")
            return text.text
        }
        var table = TextTable([.init("RECORD"), .init("CHANGE"), .init("TITLE"), .init("SINCE"), .init("STATE")])
        for change in changes {
            table.append([
                .init(reference(change)), .init(change.change),
                .init(change.title ?? "-", change.title == nil ? .quiet : nil), .init(change.since),
                .init(Self.state(change.state), change.state == "waiting" ? nil : .warning),
            ])
        }
        text.table(table)
        var summary = Wording.count(changes.count, "unsynced change") + "; 'shelf sync' sends \(changes.count == 1 ? "it" : "them")"
        if changes.last?.state == "waiting" { summary += ", 'shelf undo' takes " + (changes.count == 1 ? "it back" : "back the last one") }
        text.line(summary, .quiet)
        return text.text
    }

    /// `COLLECTION/ID` with the id as short as the table may show it.
    private func reference(_ change: Entry) -> String {
        let id = CollectionName(rawValue: change.collection).map { shortIDs.shown(change.id, in: $0) } ?? change.id
        return "\(change.collection)/\(id)"
    }

    private static func state(_ state: String) -> String {
        switch state {
        case "sent": "sent, no answer yet"
        case "conflict": "conflict"
        default: "waiting"
        }
    }

    private enum CodingKeys: String, CodingKey { case changes }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(changes, forKey: .changes)
    }
}

// MARK: - UndoScreen

/// A change `shelf undo` took back.
public struct UndoScreen: RenderableScreen, Hashable {
    public let collection: String
    public let id: String
    /// The change taken back: `create`, `update` or `delete`.
    public let change: String
    public let title: String?
    /// `removed` (a creation taken back) or `restored` (the record as last synced).
    public let outcome: String

    public init(_ undone: UndoneChange) {
        collection = undone.collection.rawValue
        id = undone.recordID
        change = undone.change.rawValue
        title = undone.label
        outcome = undone.outcome.rawValue
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        let noun = CollectionName(rawValue: collection).map(Wording.noun) ?? collection
        let record = "\(noun) \(id)\(title.map { " (\"\($0)\")" } ?? "")"
        switch change {
        case "create": text.line("Undid adding \(record): it is removed")
        case "delete": text.line("Undid removing \(record): it is back as last synced")
        default: text.line("Undid the changes to \(noun) \(id): it is back as last synced\(title.map { ", \"\($0)\"" } ?? "")")
        }
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case collection, id, change, title, outcome }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(collection, forKey: .collection)
        try container.encode(id, forKey: .id)
        try container.encode(change, forKey: .change)
        try container.encode(title, forKey: .title)
        try container.encode(outcome, forKey: .outcome)
    }
}
