import Domain
import Foundation
import Sync

// MARK: - PendingChangesScreen

/// What the next sync sends (`shelf pending`): the operations of the history whose
/// changes the server has not acknowledged yet, oldest first, so the last line is what
/// `shelf undo` takes back; then the waiting changes no operation holds (made outside the
/// history: before it, or by a conflict's resolution), which `shelf undo ID` discards.
///
/// JSON: `{"operations": [operation, as `shelf history`], "outside": [change],
/// "changes": [change]}` where a change is `{"collection", "id", "change" (create,
/// update, delete), "title", "since", "changedAt", "state" (waiting, sent, conflict)}`;
/// `changes` holds every waiting change, one per record (what the next sync sends).
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

    public let operations: [HistoryEntry]
    public let outside: [Entry]
    public let changes: [Entry]
    private let shortIDs: ShortIDs

    /// - Parameter shortIDs: the prefixes the tables show for the records' ids, as every
    ///   other table does (`--json` keeps full ids).
    public init(_ pending: PendingWork, shortIDs: ShortIDs = .full) {
        operations = pending.operations
        outside = pending.outside.map(Entry.init)
        changes = pending.changes.map(Entry.init)
        self.shortIDs = shortIDs
    }

    /// The ids the tables show, per collection, for working out their short forms.
    public static func idsShown(by pending: PendingWork) -> [(CollectionName, [String])] {
        var ids: [CollectionName: [String]] = [:]
        for change in pending.outside { ids[change.collection, default: []].append(change.recordID) }
        for record in pending.operations.flatMap(\.records) { ids[record.collection, default: []].append(record.id) }
        ids[.books, default: []] += OperationText.favoriteBooks(in: pending.operations)
        return ids.map { ($0.key, $0.value) }
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        guard !operations.isEmpty || !outside.isEmpty else {
            text.line("No unsynced changes.")
            return text.text
        }
        if !operations.isEmpty {
            var table = TextTable([.init("#", .right), .init("MADE"), .init("COMMAND"), .init("WHAT"), .init("STATE")])
            for entry in operations {
                let state = OperationText.state(entry)
                table.append([
                    .init(String(entry.operation)), .init(Wording.timestamp(entry.madeAt)), .init(entry.origin),
                    .init(OperationText.summary(entry, shortIDs: shortIDs)), .init(state, state == "waiting" ? nil : .warning),
                ])
            }
            text.table(table)
            let count = operations.count
            var summary = Wording.count(count, "operation") + " not synced yet; 'shelf sync' sends \(count == 1 ? "it" : "them")"
            if let last = operations.last { summary += ", 'shelf undo' takes back #\(last.operation)" }
            text.line(summary, .quiet)
        }
        guard !outside.isEmpty else { return text.text }
        if !operations.isEmpty { text.line("Also waiting, made outside the history ('shelf undo ID' discards one):", .quiet) }
        var table = TextTable([.init("RECORD"), .init("CHANGE"), .init("TITLE"), .init("SINCE"), .init("STATE")])
        for change in outside {
            table.append([
                .init(reference(change)), .init(change.change),
                .init(change.title ?? "-", change.title == nil ? .quiet : nil), .init(change.since),
                .init(Self.state(change.state), change.state == "waiting" ? nil : .warning),
            ])
        }
        text.table(table)
        if operations.isEmpty {
            text.line(Wording.count(outside.count, "unsynced change") + " made outside the history; 'shelf sync' sends "
                      + (outside.count == 1 ? "it" : "them") + ", 'shelf undo ID' discards one", .quiet)
        }
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

    private enum CodingKeys: String, CodingKey { case operations, outside, changes }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(operations.map(HistoryEntryJSON.init), forKey: .operations)
        try container.encode(outside, forKey: .outside)
        try container.encode(changes, forKey: .changes)
    }
}
