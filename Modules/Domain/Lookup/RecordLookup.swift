// MARK: - RecordLookupService (port)

/// Finds the record a reader means by what they typed: a full id, a unique prefix of
/// one (at least `ShortID.minimumTypedLength` characters), or a title (books, notes,
/// tasks), a name (products), a product's name (cart lines).
///
/// Declared here so every front (the CLI's commands, Presentation's router) resolves
/// the same way; Repositories implements it over the local store's indexes.
public protocol RecordLookupService: Sendable {
    /// The full id of the live record of `collection` that `reference` names.
    ///
    /// In order: an exact id always wins; then a unique id prefix of at least four
    /// characters; then a unique title (or name) match (`CollectionName.titleWord`),
    /// case- and accent-insensitive like search: a title equal to the text first, else
    /// titles containing it. A cart line is named by its product's name.
    /// - Throws: `RecordLookupError` (too short, ambiguous with candidates, not found),
    ///   `DomainError.invalidIdentifier` for text that can be neither an id nor a title.
    func resolve(_ reference: String, in collection: CollectionName) async throws -> String

    /// The shortest unique prefix (at least `ShortID.minimumShownLength` characters) of
    /// each of `ids` among the live records of `collection`.
    func shortIDs(_ ids: [String], in collection: CollectionName) async throws -> [String: String]

    /// What to call each of `ids` next to it: a book's or note's title, a product's
    /// name. Ids with no live record are left out.
    func titles(_ ids: [String], in collection: CollectionName) async throws -> [String: String]
}

// MARK: - RecordCandidate

/// One of the records an ambiguous reference could mean.
public struct RecordCandidate: Hashable, Sendable, Codable {
    public let id: String
    /// The record's title (a book's title and author), for telling candidates apart.
    public let title: String

    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}

// MARK: - RecordLookupError

/// Why a reference names no single record.
public enum RecordLookupError: Error, Hashable, Sendable {
    /// Not a full id, and shorter than a prefix may be.
    case tooShort(CollectionName, reference: String)
    /// Several records match; the first few of them, and how many there are in all.
    case ambiguous(CollectionName, reference: String, candidates: [RecordCandidate], total: Int)
    /// No live record matches.
    case notFound(CollectionName, reference: String)
    /// No book has this author (an author link).
    case noBooks(byAuthor: String)

    /// The most candidates an ambiguous reference lists.
    public static let candidateLimit = 10
}

extension RecordLookupError: CustomStringConvertible {
    /// One line: the summary, and for an ambiguous reference its candidates.
    public var description: String {
        guard case .ambiguous(_, _, let candidates, let total) = self else { return summary }
        let listed = candidates.map { "\($0.id) (\($0.title))" }.joined(separator: ", ")
        return "\(summary): \(listed)\(total > candidates.count ? ", … and \(total - candidates.count) more" : "")"
    }

    /// What went wrong, without the candidates.
    public var summary: String {
        switch self {
        case .tooShort(let collection, let reference):
            return "'\(reference)' is too short to name a \(collection.recordNoun): give its full id or at least "
                + "\(ShortID.minimumTypedLength) characters of it\(collection.titleWord.map { ", or its \($0)" } ?? "")"
        case .ambiguous(let collection, let reference, _, let total):
            return "'\(reference)' could be any of \(total) \(collection.recordNoun)s; give more of the id"
        case .notFound(let collection, let reference):
            return "no \(collection.recordNoun) with id \(collection.titleWord.map { "or \($0) " } ?? "")'\(reference)'"
        case .noBooks(let author):
            return "no book by '\(author)' is on the shelf"
        }
    }

    /// An ambiguous reference's candidates, one line each ("3f2b1c9a-…  Dune — Frank
    /// Herbert"), and how many more there are; empty for the other cases.
    public var candidateLines: [String] {
        guard case .ambiguous(_, _, let candidates, let total) = self else { return [] }
        var lines = candidates.map { "\($0.id)  \($0.title)" }
        if total > candidates.count { lines.append("… and \(total - candidates.count) more") }
        return lines
    }
}

extension CollectionName {
    /// "book", "note", "task", "cart line", "product": a record of the collection, in messages.
    public var recordNoun: String {
        switch self {
        case .books: "book"
        case .notes: "note"
        case .tasks: "reading task"
        case .cart: "cart line"
        case .products: "product"
        case .preferences: "preferences record"
        case .sessions: "reading session"
        }
    }

    /// What else than its id names a record of the collection: "title" (books, notes,
    /// tasks), "name" (products), "product name" (cart lines); nil when only the id does.
    public var titleWord: String? {
        switch self {
        case .books, .notes, .tasks: "title"
        case .products: "name"
        case .cart: "product name"
        case .preferences, .sessions: nil
        }
    }
}

// MARK: - Resolving among known ids

/// The same rules over ids already in memory (a handful of conflicts, a loaded list),
/// for references to things that are not live records of the store.
public enum RecordReferenceMatch {
    /// The id among `candidates` that `reference` names: exact first, then a unique
    /// prefix of at least `ShortID.minimumTypedLength` characters.
    /// - Throws: `RecordLookupError`.
    public static func resolve(
        _ reference: String, among candidates: [RecordCandidate], in collection: CollectionName
    ) throws(RecordLookupError) -> String {
        if candidates.contains(where: { $0.id == reference }) { return reference }
        guard reference.utf8.count >= ShortID.minimumTypedLength else { throw .tooShort(collection, reference: reference) }
        let matches = candidates.filter { $0.id.utf8.starts(with: reference.utf8) }
            .sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        switch matches.count {
        case 0: throw .notFound(collection, reference: reference)
        case 1: return matches[0].id
        default:
            throw .ambiguous(collection, reference: reference,
                             candidates: Array(matches.prefix(RecordLookupError.candidateLimit)), total: matches.count)
        }
    }
}
