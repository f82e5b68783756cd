// MARK: - ShortID

/// Short forms of record ids, as git shortens commit hashes: a reader may type any
/// unique prefix of an id, and lists show the shortest prefix that is unique.
///
/// Ids are compared as bytes (they are ASCII: `RecordID`), the order SQLite's index on
/// `(collection, id)` keeps them in — so an id's shortest unique prefix depends only on
/// its two neighbours in that order, found with two index lookups.
public enum ShortID {
    /// The fewest characters a typed prefix may have: shorter ones would match too much
    /// of a large library to be worth the question.
    public static let minimumTypedLength = 4
    /// The fewest characters a list shows, so a prefix seen today still names one record
    /// after the library has grown.
    public static let minimumShownLength = 8

    /// The shortest prefix of `id` that no other id of the collection starts with, at
    /// least `minimumShownLength` characters, never cut inside a number, and at most the
    /// whole id.
    ///
    /// NB: never inside a number: ids made from a source's numbers (`gr-234225`, Goodreads'
    /// Book Id 234225) cut at eight characters would read `gr-23422`, the whole id of
    /// another book that a later import may bring. A cut between two digits moves on to
    /// the end of the digits, so a short id shown is never another record's possible id
    /// with a number cut short.
    /// - Parameters:
    ///   - before: the next smaller id of the collection, if any.
    ///   - after: the next larger id, if any.
    public static func shortestUniquePrefix(of id: String, before: String?, after: String?) -> String {
        let shared = max(before.map { commonPrefixLength(id, $0) } ?? 0, after.map { commonPrefixLength(id, $0) } ?? 0)
        var id = id
        return id.withUTF8 { bytes in
            var length = max(minimumShownLength, shared + 1)
            while length < bytes.count, isDigit(bytes[length - 1]), isDigit(bytes[length]) { length += 1 }
            guard length < bytes.count else { return String(decoding: bytes, as: UTF8.self) }
            // NB: a valid id is ASCII, so any byte boundary is a character boundary; for
            // anything else the decoding repairs a cut character rather than trapping.
            return String(decoding: bytes.prefix(length), as: UTF8.self)
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// How many leading bytes `a` and `b` share.
    static func commonPrefixLength(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let count = min(x.count, y.count)
                var index = 0
                while index < count, x[index] == y[index] { index += 1 }
                return index
            }
        }
    }
}

// MARK: - ShortIDs

/// The prefixes a list shows for its ids, per collection; an id it does not know is
/// shown whole. `--json` never uses them: scripts get full ids.
public struct ShortIDs: Hashable, Sendable {
    private var prefixes: [CollectionName: [String: String]]

    public init(_ prefixes: [CollectionName: [String: String]] = [:]) {
        self.prefixes = prefixes
    }

    /// No short forms: every id shown whole.
    public static let full = ShortIDs()

    /// What a list shows for `id` of `collection`.
    public func shown(_ id: String, in collection: CollectionName) -> String {
        prefixes[collection]?[id] ?? id
    }

    /// Adds (or replaces) the prefixes of one collection.
    public mutating func merge(_ collection: CollectionName, _ shown: [String: String]) {
        // NB: a collection's first prefixes are kept as they are: merging thousands into
        // an empty dictionary would hash every id again.
        guard prefixes[collection] != nil else {
            prefixes[collection] = shown
            return
        }
        prefixes[collection, default: [:]].merge(shown) { _, new in new }
    }
}
