import Domain
import Foundation
import Records

// MARK: - RecordRules

/// The Domain's rules applied to a record written outside the repositories (a conflict
/// settled by hand): it must read as its collection's Domain value, so that nothing
/// Shelf cannot show reaches the store and, from there, every device.
public enum RecordRules {
    /// - Parameter json: the record in the wire shape, with its id.
    /// - Throws: `UnreadableRecord` naming the field and the rule.
    public static func check(_ collection: CollectionName, id: String, json: Data) throws(UnreadableRecord) {
        let raw = RawRecord(id: id, lastModified: 0, json: json)
        do {
            switch collection {
            case .books: _ = try RecordDecoding.decode(BookDTO.self, from: raw)
            case .notes: _ = try RecordDecoding.decode(NoteDTO.self, from: raw)
            case .tasks: _ = try RecordDecoding.decode(ReadingTaskDTO.self, from: raw)
            case .cart: _ = try RecordDecoding.decode(CartItemDTO.self, from: raw)
            case .products: _ = try RecordDecoding.decode(ProductDTO.self, from: raw)
            case .sessions: _ = try RecordDecoding.decode(ReadingSessionDTO.self, from: raw)
            case .preferences: _ = try RecordDecoding.decode(ReaderPreferencesDTO.self, from: raw)
            }
        } catch {
            // NB: the preferences record keeps the decoder's whole path in its reason, as
            // the repositories report it (`SyncedPreferencesStore`).
            throw collection == .preferences
                ? UnreadableRecord(collection: collection, id: id, reason: error.description)
                : UnreadableRecord(collection: collection, id: id, failure: error)
        }
    }
}
