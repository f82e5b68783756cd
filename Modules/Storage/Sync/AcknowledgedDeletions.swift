import Foundation

// MARK: - AcknowledgedDeletions

/// Deletions the server acknowledged, remembered so that a stale copy of the deleted
/// version cannot bring the record back.
///
/// Kinto accepts a create guarded with `If-None-Match: *` over a tombstone, and no
/// header can guard it (an `If-Match` on a missing record is always a 412). So after the
/// server forgot a collection, another device's upload of its old copy of a record
/// (delayed, or sent again) can land after this device deleted the record there. This
/// device no longer has the record, and without a memory of the deletion it would pull
/// the copy as a new record — the deletion undone on every device.
///
/// Each entry keeps the last lineage revision id (`RecordLineage`) of the version
/// deleted. A pulled live record whose lineage ends with exactly that id is that
/// version, which nobody changed since: its deletion is queued again, so every device
/// pulls the tombstone. A real edit adds a revision id and merges as usual.
public enum AcknowledgedDeletions {
    /// Entries older than this are dropped: a stale upload arrives within a device's
    /// next syncs, not months later, and a reader who brings a record back after that
    /// long wants it back.
    public static let maximumAge: TimeInterval = 30 * 24 * 3600

    /// At most this many entries are kept, the newest: one entry is under 150 bytes, so
    /// the table stays below about 300 KB even for a reader who empties a large shelf.
    public static let maximumCount = 2000
}
