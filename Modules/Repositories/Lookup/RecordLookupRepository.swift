import Domain
import Storage

// MARK: - RecordLookupRepository

/// Resolves what a reader typed to a record of the account's local store, and gives
/// lists their short ids (`RecordLookupService`), with the store's index range queries.
///
/// Reads the store directly, not a repository's in-memory copy: a lookup must see every
/// record, and asking for one id never needs the whole collection decoded.
public struct RecordLookupRepository: RecordLookupService {
    private let store: ShelfStore

    /// Up to this many ids, short ids always come from two index lookups per id, all
    /// made by one statement (under 5 ms); above it, from one ordered pass over the
    /// collection's ids when the list holds at least `bulkShare` of the collection.
    /// Measured at 100,000 books (RepositoriesBench, release): 2,000 ids by lookups
    /// 2.4 ms, all 100,000 by lookups 132 ms (~1.3 µs an id), every id in one pass 38 ms
    /// (~0.38 µs per id of the collection).
    public static let bulkThreshold = 3_000
    /// The share of a collection above which the one pass is cheaper: 0.38 / 1.3 ≈ 0.3.
    static let bulkShare = 0.3

    public init(store: ShelfStore) {
        self.store = store
    }

    // MARK: Resolving

    public func resolve(_ reference: String, in collection: CollectionName) async throws -> String {
        try store.read { reader in try Self.resolve(reference, in: collection, reader: reader) }
    }

    /// - Parameter matchingTitles: also try titles and names (`CollectionName.titleWord`).
    static func resolve(
        _ reference: String, in collection: CollectionName, matchingTitles: Bool = true, reader: StoreReader
    ) throws -> String {
        let idShaped = (try? RecordID.validate(reference)) != nil
        if idShaped, try reader.record(collection, id: reference) != nil { return reference }
        if collection == .cart {
            return try cartLine(reference, idShaped: idShaped, matchingTitles: matchingTitles, reader: reader)
        }
        let titled = matchingTitles && collection.titleWord != nil
        guard idShaped || titled else { throw DomainError.invalidIdentifier(reference) }
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        guard trimmed.utf8.count >= ShortID.minimumTypedLength else {
            guard !trimmed.isEmpty else { throw DomainError.invalidIdentifier(reference) }
            throw RecordLookupError.tooShort(collection, reference: reference)
        }
        let limit = RecordLookupError.candidateLimit
        if idShaped, let id = try single(reader.records(collection, idPrefix: reference, limit: limit), reference, collection) {
            return id
        }
        if titled {
            if let id = try single(reader.records(collection, titleEquals: trimmed, limit: limit), reference, collection) {
                return id
            }
            if let id = try single(reader.records(collection, titleContains: trimmed, limit: limit), reference, collection) {
                return id
            }
        }
        throw RecordLookupError.notFound(collection, reference: reference)
    }

    /// A cart line (its id is its product's) by a unique prefix of its id, else by its
    /// product's name or id as the catalog resolves it.
    private static func cartLine(_ reference: String, idShaped: Bool, matchingTitles: Bool, reader: StoreReader) throws -> String {
        if idShaped, reference.utf8.count >= ShortID.minimumTypedLength,
           let id = try single(reader.records(.cart, idPrefix: reference, limit: RecordLookupError.candidateLimit), reference, .cart) {
            return id
        }
        guard matchingTitles else { throw RecordLookupError.notFound(.cart, reference: reference) }
        let product: String
        do {
            product = try resolve(reference, in: .products, reader: reader)
        } catch RecordLookupError.notFound {
            throw RecordLookupError.notFound(.cart, reference: reference)
        }
        guard try reader.record(.cart, id: product) != nil else { throw RecordLookupError.notFound(.cart, reference: reference) }
        return product
    }

    /// The one match's id; nil for none.
    /// - Throws: `RecordLookupError.ambiguous` for several.
    private static func single(
        _ matches: StoreReader.Matches, _ reference: String, _ collection: CollectionName
    ) throws(RecordLookupError) -> String? {
        switch matches.total {
        case 0: return nil
        case 1 where matches.records.count == 1: return matches.records[0].id
        default:
            let candidates = matches.records.map { RecordCandidate(id: $0.id, title: RecordTitles.title(of: $0, withAuthor: true)) }
            throw .ambiguous(collection, reference: reference, candidates: candidates, total: max(matches.total, candidates.count))
        }
    }

    // MARK: Short ids

    public func shortIDs(_ ids: [String], in collection: CollectionName) async throws -> [String: String] {
        try store.read { reader in try Self.shortIDs(ids, in: collection, reader: reader) }
    }

    static func shortIDs(_ ids: [String], in collection: CollectionName, reader: StoreReader) throws -> [String: String] {
        var shown: [String: String] = [:]
        shown.reserveCapacity(ids.count)
        let collectionSize = ids.count > bulkThreshold ? try reader.count(RecordQuery(collection)) : 0
        guard ids.count > bulkThreshold, Double(ids.count) >= bulkShare * Double(collectionSize) else {
            for (id, before, after) in try reader.neighbouringIDs(of: ids, in: collection) {
                shown[id] = ShortID.shortestUniquePrefix(of: id, before: before, after: after)
            }
            return shown
        }
        let all = try reader.allIDs(collection)
        let wanted = Set(ids)
        for (index, id) in all.enumerated() where wanted.contains(id) {
            shown[id] = ShortID.shortestUniquePrefix(
                of: id, before: index > 0 ? all[index - 1] : nil, after: index + 1 < all.count ? all[index + 1] : nil)
        }
        // NB: an id the store does not hold (a favorite whose book is gone) is placed
        // among the others the slow way.
        for (id, before, after) in try reader.neighbouringIDs(of: wanted.filter { shown[$0] == nil }, in: collection) {
            shown[id] = ShortID.shortestUniquePrefix(of: id, before: before, after: after)
        }
        return shown
    }

    // MARK: Titles

    public func titles(_ ids: [String], in collection: CollectionName) async throws -> [String: String] {
        try store.read { reader in
            var titles: [String: String] = [:]
            for id in Set(ids) {
                if let record = try reader.record(collection, id: id) { titles[id] = RecordTitles.title(of: record) }
            }
            return titles
        }
    }
}
