import Domain
import Foundation

// MARK: - OperationJournal

/// The records one `ShelfStore.edit` transaction touched, each with its version from
/// before the transaction's first change to it: what the transaction records as one
/// operation of the history when its body returns (`StoreTransaction.recordOperation`).
///
/// Bounded as the history is: past `OperationHistoryLimits.maximumRecordsPerOperation`
/// records or `maximumBytesPerOperation` bytes, it stops keeping versions and only
/// remembers which records were there before, to count what the operation did.
struct OperationJournal {
    struct Key: Hashable {
        let collection: CollectionName
        let id: String
    }

    /// A record's version before the operation.
    enum Before: Hashable {
        /// No record (never there, or deleted).
        case absent
        case present(Data)
        /// There, but not kept: the operation grew past its bound.
        case presentNotKept
    }

    private(set) var touched: [Key] = []
    private(set) var before: [Key: Before] = [:]
    /// Whether each record touched is there after the operation's last change to it (a
    /// save, or not: a deletion), so an operation too large to keep its versions is
    /// counted without reading its records again.
    private(set) var isThereAfter: [Key: Bool] = [:]
    /// Bytes of the versions kept so far.
    private(set) var bytes = 0
    /// Whether the operation grew past its bound (its versions are no longer kept).
    private(set) var isOverflowing = false

    /// Notes `existing` as the version before the operation, the first time the record
    /// is touched (later changes within the same operation keep the first), and whether
    /// this change leaves it there (`saving`) or not.
    mutating func noteBefore(_ collection: CollectionName, id: String, existing: StoredRecord?, saving: Bool) {
        let key = Key(collection: collection, id: id)
        isThereAfter[key] = saving
        guard before[key] == nil else { return }
        touched.append(key)
        guard let existing, !existing.isDeleted else {
            before[key] = .absent
            return
        }
        if !isOverflowing {
            bytes += existing.json.count
            if touched.count > OperationHistoryLimits.maximumRecordsPerOperation
                || bytes > OperationHistoryLimits.maximumBytesPerOperation {
                isOverflowing = true
            }
        }
        before[key] = isOverflowing ? .presentNotKept : .present(existing.json)
    }
}
