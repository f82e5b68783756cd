import Domain
import Foundation
import Sync

// MARK: - ConflictsScreen

/// The conflicts waiting for `shelf resolve`, as `shelf conflicts` lists them.
public struct ConflictsScreen: RenderableScreen, Hashable {
    public struct Entry: Encodable, Hashable, Sendable {
        public let collection: String
        public let id: String
        /// `fields`, `delete-vs-edit` (deleted here, edited on the server) or `edit-vs-delete`.
        public let kind: String
        /// The clashing fields, by their wire names.
        public let fields: [String]
        public let title: String?
        public let detectedAt: String

        init(_ summary: ConflictSummary) {
            collection = summary.collection.rawValue
            id = summary.recordID
            kind = summary.kind.rawValue
            fields = summary.fields
            title = summary.label
            detectedAt = Wording.timestamp(summary.detectedAt)
        }

        /// What `shelf resolve` takes, the id as short as the table may show it.
        func reference(_ shortIDs: ShortIDs) -> String {
            let id = CollectionName(rawValue: collection).map { shortIDs.shown(self.id, in: $0) } ?? self.id
            return "\(collection)/\(id)"
        }

        private enum CodingKeys: String, CodingKey { case collection, id, kind, fields, title, detectedAt }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(collection, forKey: .collection)
            try container.encode(id, forKey: .id)
            try container.encode(kind, forKey: .kind)
            try container.encode(fields, forKey: .fields)
            try container.encode(title, forKey: .title)
            try container.encode(detectedAt, forKey: .detectedAt)
        }
    }

    public let conflicts: [Entry]
    private let shortIDs: ShortIDs

    /// - Parameter shortIDs: the prefixes the table shows for the records' ids, as every
    ///   other table does (`--json` keeps full ids).
    public init(_ conflicts: [ConflictSummary], shortIDs: ShortIDs = .full) {
        self.conflicts = conflicts.map(Entry.init)
        self.shortIDs = shortIDs
    }

    /// The ids the table shows, per collection, for working out their short forms.
    public static func idsShown(by conflicts: [ConflictSummary]) -> [(CollectionName, [String])] {
        Dictionary(grouping: conflicts, by: \.collection).map { ($0.key, $0.value.map(\.recordID)) }
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        guard !conflicts.isEmpty else {
            text.line("No conflicts.")
            return text.text
        }
        var table = TextTable([.init("RECORD"), .init("TITLE"), .init("CLASH"), .init("SINCE")])
        for conflict in conflicts {
            table.append([.init(conflict.reference(shortIDs)), .init(conflict.title ?? "-", conflict.title == nil ? .quiet : nil),
                          .init(Self.clash(conflict), .warning), .init(conflict.detectedAt)])
        }
        text.table(table)
        text.line(Wording.count(conflicts.count, "conflict") + "; see one with 'shelf conflicts show ID', settle it with 'shelf resolve ID'", .quiet)
        return text.text
    }

    private static func clash(_ entry: Entry) -> String {
        switch entry.kind {
        case MergeConflict.Kind.deleteVersusEdit.rawValue: "deleted here, edited on the server"
        case MergeConflict.Kind.editVersusDelete.rawValue: "edited here, deleted on the server"
        default: entry.fields.isEmpty ? "both sides changed it" : "both changed " + entry.fields.joined(separator: ", ")
        }
    }

    private enum CodingKeys: String, CodingKey { case conflicts }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(conflicts, forKey: .conflicts)
    }
}
