import Foundation

// MARK: - Describing events

extension SyncEvent {
    /// A stable snake_case name, for JSON logs and scripts.
    public var name: String {
        switch self {
        case .runStarted: "run_started"
        case .collectionStarted: "collection_started"
        case .notModified: "not_modified"
        case .pageApplied: "page_applied"
        case .pushed: "pushed"
        case .merged: "merged"
        case .conflict: "conflict"
        case .deadLettered: "dead_lettered"
        case .discardedLocalChange: "discarded_local_change"
        case .serverForgot: "server_forgot"
        case .reuploading: "reuploading"
        case .recordSkipped: "record_skipped"
        case .recordRefused: "record_refused"
        case .keyringRefused: "keyring_refused"
        case .historyDistrusted: "history_distrusted"
        case .lateRecords: "late_records"
        case .reconciled: "reconciled"
        case .writeOverwritten: "write_overwritten"
        case .retrying: "retrying"
        case .collectionUnavailable: "collection_unavailable"
        case .collectionFinished: "collection_finished"
        case .runFinished: "run_finished"
        }
    }

    /// The event's facts as ordered key/value pairs (strings or numbers), for log lines.
    public var fields: [(key: String, value: LogValue)] {
        switch self {
        case .runStarted(let collections):
            return [("collections", .string(collections.map(\.rawValue).joined(separator: ",")))]
        case .collectionStarted(let collection), .notModified(let collection):
            return [("collection", .string(collection.rawValue))]
        case .pageApplied(let collection, let counts):
            return [("collection", .string(collection.rawValue)), ("applied", .number(counts.applied)),
                    ("deleted", .number(counts.deleted)), ("total", .number(counts.totalSoFar))]
        case .pushed(let collection, let count):
            return [("collection", .string(collection.rawValue)), ("count", .number(count))]
        case .merged(let collection, let id):
            return [("collection", .string(collection.rawValue)), ("id", .string(id))]
        case .conflict(let collection, let id, let conflict):
            return [("collection", .string(collection.rawValue)), ("id", .string(id)),
                    ("kind", .string(conflict.kind.rawValue)), ("fields", .string(conflict.fields.joined(separator: ",")))]
        case .deadLettered(let collection, let id, let status, let reason):
            return [("collection", .string(collection.rawValue)), ("id", .string(id)),
                    ("status", .number(status)), ("reason", .string(reason))]
        case .discardedLocalChange(let collection, let id, let clash):
            return [("collection", .string(collection.rawValue)), ("id", .string(id)),
                    ("kind", .string(clash.kind.rawValue)), ("fields", .string(clash.fields.joined(separator: ",")))]
        case .serverForgot(let collection, let reason):
            return [("collection", .string(collection.rawValue)), ("reason", .string(reason))]
        case .reuploading(let collection, let count):
            return [("collection", .string(collection.rawValue)), ("count", .number(count))]
        case .recordSkipped(let collection, let id, let bytes, let limit):
            return [("collection", .string(collection.rawValue)), ("id", .string(id)),
                    ("bytes", .number(bytes)), ("limit", .number(limit))]
        case .recordRefused(let collection, let id, let reason):
            return [("collection", .string(collection.rawValue)), ("id", .string(id)), ("reason", .string(reason))]
        case .keyringRefused(let reason), .historyDistrusted(let reason):
            return [("reason", .string(reason))]
        case .lateRecords(let collection, let count):
            return [("collection", .string(collection.rawValue)), ("count", .number(count))]
        case .writeOverwritten(let collection, let id):
            return [("collection", .string(collection.rawValue)), ("id", .string(id))]
        case .reconciled(let collection, let found):
            return [("collection", .string(collection.rawValue)), ("ranges_counted", .number(found.rangesCounted)),
                    ("ranges_differing", .number(found.rangesDiffering)), ("ranges_listed", .number(found.rangesListed)),
                    ("listed", .number(found.listed)),
                    ("listed_bytes", .number(found.listedBytes)), ("fetched", .number(found.fetched)),
                    ("deleted", .number(found.deleted)), ("absent", .number(found.absent)),
                    ("requests", .number(found.requests)), ("duration_ms", .number(found.durationMilliseconds))]
        case .retrying(let attempt, let delay, let reason):
            let milliseconds = Int(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
            return [("attempt", .number(attempt)), ("delay_ms", .number(milliseconds)), ("reason", .string(reason))]
        case .collectionUnavailable(let collection, let reason):
            return [("collection", .string(collection.rawValue)), ("reason", .string(reason))]
        case .collectionFinished(let collection, let report):
            return [("collection", .string(collection.rawValue)), ("pulled", .number(report.pulled)),
                    ("merged", .number(report.merged)), ("conflicts", .number(report.conflicts)),
                    ("skipped", .number(report.skipped))]
        case .runFinished(let report):
            return [("outcome", .string(report.outcome.rawValue)), ("requests", .number(report.requests)),
                    ("duration_ms", .number(report.durationMilliseconds)), ("message", .string(report.message))]
        }
    }

    /// One sentence for people.
    public var summary: String {
        switch self {
        case .runStarted(let collections):
            return "sync started (\(collections.map(\.rawValue).joined(separator: ", ")))"
        case .collectionStarted(let collection):
            return "\(collection.rawValue): checking for changes"
        case .notModified(let collection):
            return "\(collection.rawValue): up to date"
        case .pageApplied(let collection, let counts):
            return "\(collection.rawValue): applied \(counts.applied) change\(counts.applied == 1 ? "" : "s")"
                + (counts.deleted > 0 ? " and \(counts.deleted) deletion\(counts.deleted == 1 ? "" : "s")" : "")
                + " (\(counts.totalSoFar) so far)"
        case .pushed(let collection, let count):
            return "\(collection.rawValue): pushed \(count) change\(count == 1 ? "" : "s")"
        case .merged(let collection, let id):
            return "\(collection.rawValue)/\(id): merged local and server changes"
        case .conflict(let collection, let id, let conflict):
            let what = conflict.fields.isEmpty ? conflict.kind.rawValue : "both changed \(conflict.fields.joined(separator: ", "))"
            return "\(collection.rawValue)/\(id): conflict (\(what)); kept the local edit unpushed"
        case .deadLettered(let collection, let id, let status, let reason):
            return "\(collection.rawValue)/\(id): refused by the server (\(status)): \(reason)"
        case .discardedLocalChange(let collection, let id, let clash):
            let what = clash.fields.isEmpty ? "the local edit (\(clash.kind.rawValue))" : "local \(clash.fields.joined(separator: ", "))"
            return "\(collection.rawValue)/\(id): the server's version won; discarded \(what)"
        case .serverForgot(let collection, let reason):
            return "\(collection.rawValue): the server lost data (\(reason)); pulling everything again"
        case .reuploading(let collection, let count):
            return "\(collection.rawValue): uploading \(count) record\(count == 1 ? "" : "s") the server no longer has"
        case .recordSkipped(let collection, let id, let bytes, let limit):
            return "\(collection.rawValue)/\(id): skipped, \(bytes) bytes is over the \(limit)-byte limit for one record (not stored)"
        case .recordRefused(let collection, let id, let reason):
            return "\(collection.rawValue)/\(id): refused, \(reason) (not applied; the local record is kept)"
        case .keyringRefused(let reason):
            return "keyring: \(reason)"
        case .historyDistrusted(let reason):
            return "the server's history of this bucket is not complete (\(reason)): every collection is asked at every run for a day"
        case .lateRecords(let collection, let count):
            return "\(collection.rawValue): \(count) record\(count == 1 ? "" : "s") committed on the server after later ones; pulled now"
        case .writeOverwritten(let collection, let id):
            return "\(collection.rawValue)/\(id): another device's write replaced this one's on the server without seeing it; merging it again"
        case .reconciled(let collection, let found):
            let differences = found.fetched + found.deleted
            let counted = found.rangesCounted
            var sentence = "\(collection.rawValue): compared with the server (\(counted) range\(counted == 1 ? "" : "s") counted, "
                + "\(found.listed) record\(found.listed == 1 ? "" : "s") listed); "
                + (differences == 0 ? "nothing missing" : "pulled \(found.fetched) missing and \(found.deleted) deletion\(found.deleted == 1 ? "" : "s")")
            if found.absent > 0 {
                sentence += "; \(found.absent) record\(found.absent == 1 ? "" : "s") here the server does not list"
            }
            return sentence
        case .retrying(let attempt, let delay, let reason):
            return "retrying (attempt \(attempt)) in \(delay.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow))): \(reason)"
        case .collectionUnavailable(let collection, let reason):
            return "\(collection.rawValue): unavailable: \(reason)"
        case .collectionFinished(let collection, let report):
            return "\(collection.rawValue): pulled \(report.pulled) record\(report.pulled == 1 ? "" : "s")"
        case .runFinished(let report):
            return "sync finished: \(report.message) (\(report.requests) request\(report.requests == 1 ? "" : "s"), \(report.durationMilliseconds) ms)"
        }
    }
}

// MARK: - LogValue

/// A log field's value: JSON logs keep numbers as numbers.
public enum LogValue: Sendable, Equatable {
    case string(String)
    case number(Int)
}
