import Records
import Storage

// MARK: - ReconciliationDifferences

/// What a reconciliation found by listing ranges, before it asks for or applies anything.
///
/// Only what the server *lists* is ever acted on: a record it lists live that this store
/// lacks (or holds older) is fetched by id and applied as a pulled change would be; a
/// tombstone it lists of a record this store holds older is applied. A record this store
/// holds in a listed range that the server does not list there is looked up by id
/// (`unlisted`): its newer version or its tombstone, wherever stamped, is applied the same
/// way; when the server has neither it is only counted (`absent`). A record the server lists
/// live at a stamp *below* the one this store knows it by went back (`wentBack`): Kinto's
/// stamps only grow, so its database was restored or written behind its API, and the
/// store's newer version goes back over it. Counts, which a server can get wrong, only
/// decide where to list.
struct ReconciliationDifferences: Sendable, Equatable {
    /// Ids the server has live (stamped up to the pass's end) in a version this store lacks.
    var missing: [String] = []
    /// Tombstones (stamped up to the pass's end) of records this store holds older versions of.
    var tombstones: [RawRecord] = []
    /// Records this store holds in a listed range, with the stamp it knows each by, that
    /// the server did not list there.
    var unlisted: [String: Int64] = [:]
    /// Ids the server has live at a stamp below the one this store knows: an older state.
    var wentBack: [String] = []
    /// Entries listed, and their bytes.
    var listed = 0
    var listedBytes = 0

    var isEmpty: Bool { missing.isEmpty && tombstones.isEmpty && unlisted.isEmpty && wentBack.isEmpty }

    /// Compares what the server listed for `covered` with what this store holds there.
    /// - Parameters:
    ///   - entries: the listing (`id`, `last_modified`, `deleted`); entries outside
    ///     `covered` are not compared.
    ///   - held: this store's records in `covered`, by id, at the stamp it knows each by
    ///     (`StoreReader.serverVersions`).
    ///   - known: the newest server version this store knows of each listed id
    ///     (`StoreReader.serverStamps`: a waiting change's base and a conflict's too).
    ///   - end: the pass's end; later stamps are the next pull's.
    mutating func compare(
        _ entries: [RawRecord], covering covered: StampRange, held: [String: Int64], known: [String: Int64], end: Int64
    ) {
        var seen: Set<String> = []
        for entry in entries where covered.contains(entry.lastModified) {
            listed += 1
            listedBytes += entry.json.count
            seen.insert(entry.id)
            if let stamp = known[entry.id], entry.lastModified < stamp, !entry.isDeleted {
                wentBack.append(entry.id)
                continue
            }
            guard entry.lastModified <= end, (known[entry.id] ?? .min) < entry.lastModified else { continue }
            if entry.isDeleted {
                if known[entry.id] != nil { tombstones.append(entry) }
            } else {
                missing.append(entry.id)
            }
        }
        for (id, stamp) in held where !seen.contains(id) {
            unlisted[id] = stamp
        }
    }

    /// What the server said of ids that were `unlisted` when asked by id (`in_id`, `_since=0`:
    /// tombstones included): a later version up to `end` is missing here, a later
    /// tombstone up to `end` is applied, an earlier live version went back; an id it does
    /// not know at all is absent.
    /// - Returns: how many it does not know.
    mutating func resolve(_ answered: [RawRecord], asked: [String: Int64], end: Int64) -> Int {
        var found: Set<String> = []
        for entry in answered {
            guard let stamp = asked[entry.id] else { continue }
            found.insert(entry.id)
            if entry.lastModified < stamp, !entry.isDeleted {
                wentBack.append(entry.id)
                continue
            }
            guard entry.lastModified <= end, entry.lastModified > stamp else { continue }
            if entry.isDeleted {
                tombstones.append(entry)
            } else {
                missing.append(entry.id)
            }
        }
        return asked.keys.count { !found.contains($0) }
    }
}
