import Domain
import Foundation
import Records
import Storage

// MARK: - RecordRules

/// The Domain's rules applied to a record written outside the repositories (a conflict
/// settled by hand): it must read as its collection's Domain value, so that nothing
/// Shelf cannot show reaches the store and, from there, every device.
public enum RecordRules {
    /// - Parameter json: the record in the wire shape, with its id.
    /// - Throws: `RepositoryError.unreadableRecord` naming the field and the rule.
    public static func check(_ collection: CollectionName, id: String, json: Data) throws(RepositoryError) {
        let record = StoredRecord(collection: collection, id: id, json: json, lastModified: nil, isDeleted: false)
        switch collection {
        case .books: _ = try BookMapping.decode(record)
        case .notes: _ = try NoteMapping.decode(record)
        case .tasks: _ = try ReadingTaskMapping.decode(record)
        case .cart: _ = try CartItemMapping.decode(record)
        case .products: _ = try ProductMapping.decode(record)
        case .sessions: _ = try ReadingSessionMapping.decode(record)
        case .preferences:
            let raw = RawRecord(id: id, lastModified: 0, json: json)
            do {
                _ = try RecordDecoding.decode(ReaderPreferencesDTO.self, from: raw)
            } catch {
                throw .unreadableRecord(UnreadableRecord(collection: collection, id: id, reason: error.description))
            }
        }
    }
}
