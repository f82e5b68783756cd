import Domain
import Foundation

// MARK: - OutboxEntry

/// A local change waiting to be pushed: at most one per record, in the order the
/// record was first changed.
///
/// The entry says what to tell the server and against which server version; the
/// content to send is the record's current row (`StoredRecord.json`), so several edits
/// before a sync push the latest content once. How a new edit folds into a waiting
/// entry is described on `OutboxEntry.Kind.coalescing(_:with:)`.
public struct OutboxEntry: Hashable, Sendable, Identifiable {
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// Push with `If-None-Match: *`: the server has never seen this id.
        case create
        /// Push with `If-Match: "<base>"`.
        case update
        /// Delete with `If-Match: "<base>"`.
        case delete
    }

    /// Position in the outbox; push in ascending order.
    public var sequence: Int64
    public var collection: CollectionName
    public var recordID: String
    public var kind: Kind
    /// The server's `last_modified` the change was made against; nil for `create`.
    /// Stays the ORIGINAL base across later edits, so the push's `If-Match` detects a
    /// server change made at any time since the reader started editing.
    public var baseLastModified: Int64?
    /// When the record was first changed locally.
    public var createdAt: Date
    /// When the latest local edit folded into this entry.
    public var updatedAt: Date
    /// Bumped on every edit folded into the entry. A push remembers the revision it
    /// sent; `SyncRules.acknowledgePush` uses it to tell "the server has what is
    /// here" from "the reader edited again while the request was in flight".
    public var revision: Int64
    /// The revision that was sent, once the entry has been sent: from then on the entry
    /// is *in flight* until the server's answer is known. The server may have applied it
    /// whatever happened to the reply, so an in-flight entry is never coalesced away or
    /// rewritten as if unsent: `kind`, `baseLastModified` and `sentBody` stay those of
    /// the request, which is repeated as it was until it is acknowledged (its answer,
    /// a 412 carrying exactly what was sent, or its echo in a pull). Local edits made
    /// meanwhile bump `revision` and wait behind it.
    public var sentRevision: Int64?
    /// The exact body sent for a `create` or `update` in flight (nil for a `delete`).
    public var sentBody: Data?
    /// The revision id carried in `sentBody`'s lineage (`RecordLineage`): a server
    /// record whose lineage names it descends from this write, so the write was applied.
    /// Nil for a `delete`, and for an entry sent by a build without lineage.
    public var sentLineageID: String?
    /// The stamp of a tombstone the server holds of the record, when a waiting change was
    /// put over one: a create keeps what it was rebased over (`StoreReader.serverStamps`);
    /// an encrypted account's deletion then goes up as a new sealed record (`If-None-Match: *`),
    /// since the server has no live version to name (`IntegrityGate`). Cleared when the
    /// change is moved onto a live version.
    public var serverTombstone: Int64?

    public var id: Int64 { sequence }

    /// Whether the entry has been sent and its answer is not known yet.
    public var isInFlight: Bool { sentRevision != nil }

    /// Whether local edits were made after the entry was sent (always true when unsent).
    public var hasChangesAfterSending: Bool { sentRevision.map { revision > $0 } ?? true }

    public init(
        sequence: Int64, collection: CollectionName, recordID: String, kind: Kind,
        baseLastModified: Int64?, createdAt: Date, updatedAt: Date, revision: Int64,
        sentRevision: Int64? = nil, sentBody: Data? = nil, sentLineageID: String? = nil, serverTombstone: Int64? = nil
    ) {
        self.sequence = sequence
        self.collection = collection
        self.recordID = recordID
        self.kind = kind
        self.baseLastModified = baseLastModified
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.revision = revision
        self.sentRevision = sentRevision
        self.sentBody = sentBody
        self.sentLineageID = sentLineageID
        self.serverTombstone = serverTombstone
    }
}

// MARK: - Coalescing

extension OutboxEntry.Kind {
    /// What a waiting entry becomes when the reader makes another change to the same
    /// record before a sync. The base of the waiting entry is always kept.
    ///
    /// | waiting | new edit | result                                                     |
    /// |---------|----------|------------------------------------------------------------|
    /// | —       | save     | `create` when the server has never seen it, else `update`  |
    /// | —       | delete   | `delete` (nothing when the record was never synced)        |
    /// | create  | save     | `create`, new content: the server still hasn't seen it     |
    /// | create  | delete   | nothing: entry and record dropped, the server never knew   |
    /// | update  | save     | `update`, first base                                       |
    /// | update  | delete   | `delete`, first base                                       |
    /// | delete  | save     | `update`, first base: the record is back, changed          |
    /// | delete  | delete   | `delete`, unchanged                                        |
    ///
    /// An entry in flight does not coalesce: it keeps its kind and base (those of the
    /// request sent), and the edit waits behind it (`OutboxEntry.sentRevision`).
    ///
    /// - Returns: the new kind, or nil when the entry disappears.
    public static func coalescing(_ waiting: OutboxEntry.Kind, with edit: LocalEdit) -> OutboxEntry.Kind? {
        switch (waiting, edit) {
        case (.create, .save): .create
        case (.create, .delete): nil
        case (.update, .save): .update
        case (.update, .delete): .delete
        case (.delete, .save): .update
        case (.delete, .delete): .delete
        }
    }

    /// A reader's change to one record.
    public enum LocalEdit: Hashable, Sendable {
        case save
        case delete
    }
}

// MARK: - PendingChange

/// An outbox entry with the record content to push.
public struct PendingChange: Hashable, Sendable {
    public var entry: OutboxEntry
    /// The record's current JSON; for `delete`, the last local content before the
    /// deletion (useful for conflict reports, not sent).
    public var json: Data

    public init(entry: OutboxEntry, json: Data) {
        self.entry = entry
        self.json = json
    }
}
