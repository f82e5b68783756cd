import Domain
import Foundation
import Sync

// MARK: - OperationText

/// An operation of the history in words, the same in `shelf history`, `shelf pending`,
/// `shelf undo` and `shelf ui`'s `P`: what it did to which records —
/// `changed book 3f2b1c9a ("Dune (1965)"): title` or `removed book 3f2b1c9a ("Dune");
/// also removed 2 notes, changed favorites and settings`.
public enum OperationText {
    /// - Parameter shortIDs: the prefixes a table shows for ids.
    public static func summary(_ entry: HistoryEntry, shortIDs: ShortIDs = .full) -> String {
        guard let first = entry.records.first else {
            let parts = entry.tally.sorted { $0.key.rawValue < $1.key.rawValue }.flatMap { collection, tally in
                [(tally.added, "added"), (tally.changed, "changed"), (tally.removed, "removed")].filter { $0.0 > 0 }
                    .map { "\($0.1) \(Wording.count($0.0, noun(collection), plural(collection)))" }
            }
            return "\(Wording.count(entry.recordCount, "record")): \(parts.joined(separator: ", ")) (too large to keep: cannot be undone)"
        }
        var text = describe(first, shortIDs: shortIDs)
        let others = entry.records.dropFirst()
        guard !others.isEmpty else { return text }
        var groups: [(change: HistoryRecord.Change, collection: CollectionName, count: Int)] = []
        for record in others {
            if let index = groups.firstIndex(where: { $0.change == record.change && $0.collection == record.collection }) {
                groups[index].count += 1
            } else {
                groups.append((record.change, record.collection, 1))
            }
        }
        text += "; also " + groups.map { group in
            group.collection == .preferences
                ? "\(group.change.rawValue) \(noun(.preferences))"
                : "\(group.change.rawValue) \(Wording.count(group.count, noun(group.collection), plural(group.collection)))"
        }.joined(separator: ", ")
        return text
    }

    /// One record's part: `changed book 3f2b1c9a ("Dune (1965)"): title`.
    static func describe(_ record: HistoryRecord, shortIDs: ShortIDs) -> String {
        let shown = record.fields.map { field in
            // A favorite's field names its book: by the id a table shows for it.
            field.hasPrefix(favoritePrefix) ? favoritePrefix + shortIDs.shown(String(field.dropFirst(favoritePrefix.count)), in: .books) : field
        }
        let fields = shown.isEmpty ? "" : ": " + shown.joined(separator: ", ")
        return "\(record.change.rawValue) \(name(record.collection, id: record.id, label: record.label, shortIDs: shortIDs))\(fields)"
    }

    /// `book 3f2b1c9a ("Dune")`; the preferences record is "favorites and settings".
    public static func name(_ collection: CollectionName, id: String, label: String?, shortIDs: ShortIDs = .full) -> String {
        guard collection != .preferences else { return noun(.preferences) }
        return "\(noun(collection)) \(shortIDs.shown(id, in: collection))" + (label.map { " (\"\($0)\")" } ?? "")
    }

    /// How `OperationHistory` names a favorite's field: `favorite <book id>`.
    static let favoritePrefix = "favorite "

    /// The books whose favorite an entry's records changed, for their short ids.
    public static func favoriteBooks(in entries: [HistoryEntry]) -> [String] {
        entries.flatMap(\.records).filter { $0.collection == .preferences }.flatMap(\.fields)
            .filter { $0.hasPrefix(favoritePrefix) }.map { String($0.dropFirst(favoritePrefix.count)) }
    }

    /// `#12 (book edit)`.
    public static func reference(_ entry: HistoryEntry) -> String {
        "#\(entry.operation) (\(entry.origin))"
    }

    /// Where an operation's changes are: `synced`, `waiting`, `sent, no answer yet`, `conflict`, `undone`.
    public static func state(_ entry: HistoryEntry) -> String {
        guard entry.state == .done else { return "undone" }
        switch entry.delivery {
        case .synced: return "synced"
        case .waiting: return "waiting"
        case .sent: return "sent, no answer yet"
        case .conflict: return "conflict"
        case .unknown: return "-"
        }
    }

    private static func noun(_ collection: CollectionName) -> String {
        collection == .preferences ? "favorites and settings" : Wording.noun(collection)
    }

    private static func plural(_ collection: CollectionName) -> String {
        switch collection {
        case .preferences: "favorites and settings"
        case .cart: "cart lines"
        case .sessions: "reading sessions"
        default: Wording.noun(collection) + "s"
        }
    }
}

// MARK: - HistoryEntryJSON

/// One operation as `--json` prints it (`history`, `pending`, `undo`):
/// `{"operation", "madeAt", "origin", "state" (done, undone), "delivery" (synced, waiting,
/// sent, conflict, unknown), "reverts", "undoable", "recordCount", "summary",
/// "records": [{"collection", "id", "title", "change" (added, changed, removed), "fields"}]}`.
struct HistoryEntryJSON: Encodable {
    let entry: HistoryEntry

    init(_ entry: HistoryEntry) {
        self.entry = entry
    }

    private enum CodingKeys: String, CodingKey {
        case operation, madeAt, origin, state, delivery, reverts, undoable, recordCount, summary, records
    }

    private enum RecordKeys: String, CodingKey { case collection, id, title, change, fields }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entry.operation, forKey: .operation)
        try container.encode(Wording.timestamp(entry.madeAt), forKey: .madeAt)
        try container.encode(entry.origin, forKey: .origin)
        try container.encode(entry.state.rawValue, forKey: .state)
        try container.encode(entry.delivery.rawValue, forKey: .delivery)
        try container.encode(entry.reverts, forKey: .reverts)
        try container.encode(entry.isUndoable, forKey: .undoable)
        try container.encode(entry.recordCount, forKey: .recordCount)
        try container.encode(OperationText.summary(entry), forKey: .summary)
        var records = container.nestedUnkeyedContainer(forKey: .records)
        for record in entry.records {
            var item = records.nestedContainer(keyedBy: RecordKeys.self)
            try item.encode(record.collection.rawValue, forKey: .collection)
            try item.encode(record.id, forKey: .id)
            try item.encode(record.label, forKey: .title)
            try item.encode(record.change.rawValue, forKey: .change)
            try item.encode(record.fields, forKey: .fields)
        }
    }
}
