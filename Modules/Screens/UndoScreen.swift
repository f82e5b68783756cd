import Domain
import Foundation
import Sync

// MARK: - UndoScreen

/// What `shelf undo` or `shelf redo` did: the operation taken back or put back, and what
/// became of each of its records.
///
/// JSON: `{"direction" (undo, redo), "operation", "origin", "summary", "records":
/// [{"collection", "id", "title", "outcome" (removed, restored, changed, unchanged),
/// "fields"}], "revertedBy", "canRedo"}`; `operation`, `origin` and `summary` are null when
/// a record's changes made outside the history were discarded.
public struct UndoScreen: RenderableScreen, Hashable {
    public let outcome: UndoOutcome

    public init(_ outcome: UndoOutcome) {
        self.outcome = outcome
    }

    /// What was done, in one line (`shelf ui`'s status line).
    public var headline: String {
        let verb = outcome.direction == .undo ? "Undid" : "Redid"
        guard let entry = outcome.entry else {
            let names = outcome.records.map { OperationText.name($0.collection, id: $0.id, label: $0.label) }
            return "Discarded the unsynced changes to \(names.joined(separator: ", "))."
        }
        return "\(verb) \(OperationText.reference(entry)): \(OperationText.summary(entry))."
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        let verb = outcome.direction == .undo ? "Undid" : "Redid"
        guard let entry = outcome.entry else {
            // A record's changes outside the history, discarded.
            for record in outcome.records {
                let name = OperationText.name(record.collection, id: record.id, label: record.label)
                text.line("Discarded the unsynced changes to \(name): "
                          + (record.outcome == .removed ? "it is removed" : "it is back as last synced"))
            }
            return text.text
        }
        let head = "\(verb) \(OperationText.reference(entry)): \(OperationText.summary(entry))"
        if outcome.records.count == 1, let record = outcome.records.first {
            text.line(head + " — " + (record.outcome == .changed ? "set back" : Self.outcome(record)))
        } else {
            text.line(head)
            for record in outcome.records {
                text.line("  " + OperationText.name(record.collection, id: record.id, label: record.label) + ": " + Self.outcome(record))
            }
        }
        if let revertedBy = outcome.revertedBy {
            text.line("Taken back by a new operation, #\(revertedBy): 'shelf undo' takes that back.", .quiet)
        } else if outcome.canRedo {
            text.line("'shelf redo' puts it back.", .quiet)
        }
        return text.text
    }

    private static func outcome(_ record: UndoOutcome.Record) -> String {
        switch record.outcome {
        case .removed: "removed"
        case .restored: "back as it was"
        case .changed: record.fields.joined(separator: ", ") + " set back"
        case .unchanged: "already as it was"
        }
    }

    private enum CodingKeys: String, CodingKey { case direction, operation, origin, summary, records, revertedBy, canRedo }
    private enum RecordKeys: String, CodingKey { case collection, id, title, outcome, fields }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outcome.direction.rawValue, forKey: .direction)
        try container.encode(outcome.entry?.operation, forKey: .operation)
        try container.encode(outcome.entry?.origin, forKey: .origin)
        try container.encode(outcome.entry.map { OperationText.summary($0) }, forKey: .summary)
        var records = container.nestedUnkeyedContainer(forKey: .records)
        for record in outcome.records {
            var item = records.nestedContainer(keyedBy: RecordKeys.self)
            try item.encode(record.collection.rawValue, forKey: .collection)
            try item.encode(record.id, forKey: .id)
            try item.encode(record.label, forKey: .title)
            try item.encode(record.outcome.rawValue, forKey: .outcome)
            try item.encode(record.fields, forKey: .fields)
        }
        try container.encode(outcome.revertedBy, forKey: .revertedBy)
        try container.encode(outcome.canRedo, forKey: .canRedo)
    }
}
