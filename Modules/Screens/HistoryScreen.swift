import Domain
import Foundation
import Sync

// MARK: - HistoryScreen

/// The reader's history of operations (`shelf history`), oldest first: each operation's
/// number, when, the command that made it, what it did, and where it stands — synced,
/// waiting for a sync, or undone — with what `undo` and `redo` would take.
///
/// JSON: `{"operations": [{"operation", "madeAt", "origin", "state", "delivery", "reverts",
/// "undoable", "recordCount", "summary", "records": […]}], "undo": N or null, "redo": N or null}`.
public struct HistoryScreen: RenderableScreen, Hashable {
    public let entries: [HistoryEntry]
    private let shortIDs: ShortIDs

    public init(_ entries: [HistoryEntry], shortIDs: ShortIDs = .full) {
        self.entries = entries
        self.shortIDs = shortIDs
    }

    /// The ids the table shows, per collection, for working out their short forms.
    public static func idsShown(by entries: [HistoryEntry]) -> [(CollectionName, [String])] {
        var ids = Dictionary(grouping: entries.flatMap(\.records), by: \.collection).mapValues { $0.map(\.id) }
        ids[.books, default: []] += OperationText.favoriteBooks(in: entries)
        return ids.map { ($0.key, $0.value) }
    }

    /// The operation `undo` takes back: the last in effect.
    public var undoable: HistoryEntry? { entries.last { $0.state == .done } }
    /// The operation `redo` puts back: the first undone.
    public var redoable: HistoryEntry? { entries.first { $0.state == .undone } }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        guard !entries.isEmpty else {
            text.line("The history is empty: no change has been made here since it began.")
            return text.text
        }
        var table = TextTable([.init("#", .right), .init("MADE"), .init("COMMAND"), .init("WHAT"), .init("STATE")])
        for entry in entries {
            let state = OperationText.state(entry)
            let role: TextStyle.Role? = entry.state == .undone || state == "synced" ? .quiet : state == "waiting" ? nil : .warning
            table.append([
                .init(String(entry.operation)), .init(Wording.timestamp(entry.madeAt)), .init(entry.origin),
                .init(OperationText.summary(entry, shortIDs: shortIDs)
                      + (entry.reverts.map { " (takes back #\($0))" } ?? "")), .init(state, role),
            ])
        }
        text.table(table)
        var hints: [String] = []
        if let undoable { hints.append("'shelf undo' takes back #\(undoable.operation)" + (undoable.isUndoable ? "" : " (it cannot: too large)")) }
        if let redoable { hints.append("'shelf redo' puts back #\(redoable.operation)") }
        text.line(Wording.count(entries.count, "operation") + (hints.isEmpty ? "" : "; " + hints.joined(separator: ", ")), .quiet)
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case operations, undo, redo }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries.map(HistoryEntryJSON.init), forKey: .operations)
        try container.encode(undoable?.operation, forKey: .undo)
        try container.encode(redoable?.operation, forKey: .redo)
    }
}
