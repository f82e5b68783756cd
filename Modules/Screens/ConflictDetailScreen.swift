import Domain
import Foundation
import Sync

// MARK: - ConflictDetailScreen

/// One conflict field by field (`shelf conflicts show`): each field that differs, with
/// its base, local and server values and what the merge does with it — so `resolve`
/// is chosen knowing what each side holds.
///
/// Values are written as JSON (text in double quotes), which is also how `--set` and
/// the `--edit` form take them; a field a version lacks shows as `(absent)`, a deleted
/// version as `(deleted)`.
public struct ConflictDetailScreen: RenderableScreen, Hashable {
    public struct Field: Encodable, Hashable, Sendable {
        public let name: String
        public let base: JSONValue?
        public let local: JSONValue?
        public let server: JSONValue?
        /// `clash`, or the side whose change the merge keeps: `local`, `server`.
        public let outcome: String

        private enum CodingKeys: String, CodingKey { case name, base, local, server, outcome }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(base, forKey: .base)
            try container.encode(local, forKey: .local)
            try container.encode(server, forKey: .server)
            try container.encode(outcome, forKey: .outcome)
        }
    }

    public let collection: String
    public let id: String
    public let kind: String
    public let title: String?
    public let detectedAt: String
    public let deletedHere: Bool
    public let deletedOnServer: Bool
    public let clashing: [String]
    public let fields: [Field]

    public init(_ detail: ConflictDetail) {
        collection = detail.summary.collection.rawValue
        id = detail.summary.recordID
        kind = detail.summary.kind.rawValue
        title = detail.summary.label
        detectedAt = Wording.timestamp(detail.summary.detectedAt)
        deletedHere = detail.deletedHere
        deletedOnServer = detail.deletedOnServer
        clashing = detail.clashingFields
        fields = detail.fields.map { field in
            Field(name: field.name, base: field.base, local: field.local, server: field.server, outcome: field.outcome.rawValue)
        }
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        let reference = "\(collection)/\(id)"
        text.line("Conflict on \(reference)\(title.map { " \"\($0)\"" } ?? "") since \(detectedAt)", .header)
        text.line(clash)
        if !fields.isEmpty {
            text.line("")
            var table = TextTable([.init("FIELD"), .init("BASE"), .init("LOCAL"), .init("SERVER"), .init("MERGE")])
            for field in fields {
                table.append([
                    .init(field.name),
                    .init(Self.shown(field.base, deleted: false), .quiet),
                    .init(Self.shown(field.local, deleted: deletedHere)),
                    .init(Self.shown(field.server, deleted: deletedOnServer)),
                    .init(Self.outcome(field.outcome), field.outcome == "clash" ? .warning : .quiet),
                ])
            }
            text.table(table)
        }
        text.line("")
        if deletedHere || deletedOnServer {
            text.line("Settle it with 'shelf resolve \(reference) --keep local|remote'.", .quiet)
        } else {
            text.line("Settle it with 'shelf resolve \(reference)' and one of:", .quiet)
            text.line("  --keep local|remote, --field FIELD=local|remote, --set FIELD=VALUE, --edit", .quiet)
        }
        return text.text
    }

    private var clash: String {
        switch kind {
        case MergeConflict.Kind.deleteVersusEdit.rawValue: "Deleted here, edited on the server."
        case MergeConflict.Kind.editVersusDelete.rawValue: "Edited here, deleted on the server."
        default:
            clashing.isEmpty
                ? "Both sides changed it; no field clashes any more."
                : "Both sides changed \(clashing.joined(separator: ", ")) differently."
        }
    }

    private static func shown(_ value: JSONValue?, deleted: Bool) -> String {
        if deleted { return "(deleted)" }
        return value.map(FieldValueText.written) ?? "(absent)"
    }

    private static func outcome(_ outcome: String) -> String {
        switch outcome {
        case "local": "keeps local"
        case "server": "keeps server"
        default: "clash"
        }
    }

    private enum CodingKeys: String, CodingKey {
        case collection, id, kind, title, detectedAt, deletedHere, deletedOnServer, clashing, fields
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(collection, forKey: .collection)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(title, forKey: .title)
        try container.encode(detectedAt, forKey: .detectedAt)
        try container.encode(deletedHere, forKey: .deletedHere)
        try container.encode(deletedOnServer, forKey: .deletedOnServer)
        try container.encode(clashing, forKey: .clashing)
        try container.encode(fields, forKey: .fields)
    }
}

// MARK: - ResolutionScreen

/// What `shelf resolve` did: each clashing field and what it took.
public struct ResolutionScreen: RenderableScreen, Hashable {
    public let collection: String
    public let id: String
    /// `local` or `remote` when every field (or the whole record) took that side; `mixed` otherwise.
    public let kept: String
    /// Field → `local`, `remote` or `written`; empty for a deletion clash.
    public let fields: [String: String]
    public let queued: Bool

    public init(_ resolution: ConflictResolver.Resolution) {
        collection = resolution.collection.rawValue
        id = resolution.recordID
        fields = resolution.fields.mapValues(\.rawValue)
        let taken = Set(resolution.fields.values)
        kept = resolution.wholeRecord?.rawValue
            ?? (taken.count == 1 && taken.first != .written ? taken.first?.rawValue : nil)
            ?? "mixed"
        queued = resolution.queued
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        let reference = "\(collection)/\(id)"
        if fields.isEmpty {
            text.line("Resolved \(reference): kept the \(kept == "local" ? "local" : "server's") version")
        } else {
            let choices = fields.keys.sorted().map { field in "\(field) ← \(fields[field] == "remote" ? "server" : fields[field] ?? "")" }
            text.line("Resolved \(reference): \(choices.joined(separator: ", "))")
        }
        text.line(queued ? "The result is sent on the next sync." : "Nothing to send: the server's version is kept.", .quiet)
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case collection, id, kept, fields, queued }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(collection, forKey: .collection)
        try container.encode(id, forKey: .id)
        try container.encode(kept, forKey: .kept)
        try container.encode(fields, forKey: .fields)
        try container.encode(queued, forKey: .queued)
    }
}
