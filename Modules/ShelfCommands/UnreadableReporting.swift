import Domain
import RecordDTOs
import Repositories
import Screens
import Synchronization

// MARK: - UnreadableLog

/// The stored records this command's reads left out because they do not read, each
/// once: a warning line per collection on standard error, and `unreadable` in `--json`.
final class UnreadableLog: Sendable {
    private let found = Mutex<[UnreadableRecord]>([])

    func record(_ records: [UnreadableRecord]) {
        found.withLock { list in
            for record in records where !list.contains(where: { $0.collection == record.collection && $0.id == record.id }) {
                list.append(record)
            }
        }
    }

    var records: [UnreadableRecord] { found.withLock { $0 } }

    /// The records as `--json` lists them.
    var views: [UnreadableRecordView] {
        records.map { UnreadableRecordView(collection: $0.collection.rawValue, id: $0.id, reason: $0.reason) }
    }

    /// "2 books records cannot be read and are left out (books record 'b1' cannot be
    /// read: …); they stay in the store untouched".
    var warnings: [String] {
        let all = records
        var order: [CollectionName] = []
        for record in all where !order.contains(record.collection) { order.append(record.collection) }
        return order.map { collection in
            let mine = all.filter { $0.collection == collection }
            let count = mine.count
            return "\(count) \(collection.rawValue) record\(count == 1 ? "" : "s") cannot be read and \(count == 1 ? "is" : "are") left out "
                + "(\(mine[0])\(count > 1 ? "; …" : "")); left in the store untouched"
        }
    }
}
