import Foundation
import Vocabulary

// MARK: - RawRecord

/// A Kinto record as Shelf moves it between the server and the store: the three fields
/// the sync acts on, plus the record's exact bytes as the server sent them, to store
/// without re-encoding. The one type for a record in the wire shape on either side:
/// Services returns it, Storage applies it.
///
/// Tombstones (`{"id", "last_modified", "deleted": true}`) are records too.
public struct RawRecord: Identifiable, Sendable, Hashable {
    public var id: String
    /// The server's timestamp for this version, in milliseconds since 1970.
    public var lastModified: Int64
    /// A tombstone left by a delete (`_since` lists return them).
    public var isDeleted: Bool
    /// The record object's bytes, from `{` to `}`, as the server sent them (non-ASCII
    /// text stays `\uXXXX`-escaped).
    public var json: Data {
        // NB: fields read from other bytes no longer describe the record.
        didSet {
            indexedFields = nil
            envelope = nil
        }
    }
    /// The members the store indexes, when the scanner that found the record already
    /// read them (a pulled page, `RecordListScanner`): the store then does not read the
    /// record's bytes a second time. Derived from `json`, so it takes no part in
    /// equality; nil when nobody asked for them.
    public var indexedFields: IndexedFields?
    /// The end-to-end encryption envelope's members, when the record has a `shelf_enc`
    /// member and was read by the scanner (`WireEnvelope`); offsets are into `json`.
    /// Derived from `json`, so it takes no part in equality.
    public var envelope: WireEnvelope?

    public init(
        id: String, lastModified: Int64, isDeleted: Bool = false, json: Data, indexedFields: IndexedFields? = nil,
        envelope: WireEnvelope? = nil
    ) {
        self.id = id
        self.lastModified = lastModified
        self.isDeleted = isDeleted
        self.json = json
        self.indexedFields = indexedFields
        self.envelope = envelope
    }

    /// Reads one record object (`{"id": …, "last_modified": …, …}`), validating all of it.
    /// - Throws: `JSONScanError` when the bytes are not one, with the byte offset.
    public init(scanning json: Data) throws(JSONScanError) {
        self = try JSONByteScanner.withScanner(over: json) { (scanner) throws(JSONScanError) in
            let record = try scanner.scanRecord()
            try scanner.expectEnd()
            return record
        }
    }
}

// MARK: - Equality

extension RawRecord {
    /// `indexedFields` is read from `json`, so two records with the same bytes are the
    /// same record whether or not it was read.
    public static func == (left: RawRecord, right: RawRecord) -> Bool {
        left.id == right.id && left.lastModified == right.lastModified && left.isDeleted == right.isDeleted
            && left.json == right.json
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(lastModified)
        hasher.combine(isDeleted)
        hasher.combine(json)
    }
}

extension RawRecord: CustomStringConvertible {
    public var description: String {
        "RawRecord(\(id) @\(lastModified)\(isDeleted ? ", deleted" : ""), \(json.count) bytes)"
    }
}

// MARK: - Scanning a record

extension JSONByteScanner {
    /// Reads a record object: `id` (string), `last_modified` (integer) and `deleted`
    /// (boolean, optional) from its top level; every other member is validated and skipped.
    /// - Parameter collection: also keep the members `collection`'s store columns are
    ///   computed from (`RecordIndexing.wireNames`) in `indexedFields`, read in the same pass.
    /// - Parameter source: the bytes this scanner reads, when the record's `json` may be a
    ///   slice of them (sharing their storage) instead of a copy: a pulled page's records
    ///   then cost no allocation and no copy of their own bytes.
    public mutating func scanRecord(indexingFor collection: CollectionName? = nil, slicing source: Data? = nil) throws(JSONScanError) -> RawRecord {
        skipWhitespace()
        let start = offset
        guard peek == UInt8(ascii: "{") else {
            throw fail(peek == nil ? "unexpected end of input, expected a record" : "expected a record object")
        }
        var id: String?
        var lastModified: Int?
        var deleted = false
        var envelope: WireEnvelope?
        var others = 0
        var sawDeleted = false
        let names = collection.map { RecordIndexing.wireNames(for: $0) }
        var fields = WireFields()
        if let names { fields.reserve(names.count) }
        // NB: `forEachMember` refuses a member named twice, so each of these is read once
        // (and each of `fields` is new: `appendNew`).
        try forEachMember { key, scanner throws(JSONScanError) in
            if scanner.key(key, is: "id") {
                let value = try scanner.readString("a record's \"id\"")
                id = value
                if names != nil { fields.appendNew("id", .string(value)) }
            } else if scanner.key(key, is: "last_modified") {
                lastModified = try scanner.readInteger("\"last_modified\"")
            } else if scanner.key(key, is: "deleted") {
                deleted = try scanner.readBool("\"deleted\"")
                sawDeleted = true
            } else if scanner.key(key, is: "shelf_enc") {
                envelope = try scanner.scanEnvelope(recordStart: start)
            } else {
                others += 1
                if let names, let name = scanner.name(key, keeping: names) {
                    fields.appendNew(name, try scanner.readWireValue())
                } else {
                    try scanner.skipValue()
                }
            }
        }
        guard let id else { throw fail("a record has no \"id\"", at: start) }
        guard let lastModified else { throw fail("record \(id) has no \"last_modified\"", at: start) }
        // NB: even `"deleted": false` stands beside an envelope: a sealed record has nothing
        // else in the clear.
        envelope?.membersBeside = others + (sawDeleted ? 1 : 0)
        let json = source.map { $0[($0.startIndex + start)..<($0.startIndex + offset)] } ?? Data(bytes: base + start, count: offset - start)
        return RawRecord(
            id: id, lastModified: Int64(lastModified), isDeleted: deleted, json: json,
            indexedFields: collection.map { IndexedFields(collection: $0, fields: fields) }, envelope: envelope)
    }

    /// Finds the value at `path` (object keys from the top) and returns its byte range,
    /// validating the whole document on the way. Nil when a key is absent.
    public mutating func findValue(at path: ArraySlice<String>) throws(JSONScanError) -> Range<Int>? {
        guard let first = path.first else { return try skipValue() }
        skipWhitespace()
        guard peek == UInt8(ascii: "{") else {
            try skipValue()
            return nil
        }
        var found: Range<Int>?
        try forEachMember { key, scanner throws(JSONScanError) in
            if found == nil, scanner.decode(key) == first {
                found = try scanner.findValue(at: path.dropFirst())
            } else {
                try scanner.skipValue()
            }
        }
        return found
    }

    /// The record at `path` of a response body (`["data"]`, `["details", "existing"]`),
    /// validating the whole body; nil when the path is absent.
    public mutating func scanRecord(at path: ArraySlice<String>) throws(JSONScanError) -> RawRecord? {
        guard let range = try findValue(at: path) else { return nil }
        var record = JSONByteScanner(base: base + range.lowerBound, count: range.count)
        return try record.scanRecord()
    }
}
