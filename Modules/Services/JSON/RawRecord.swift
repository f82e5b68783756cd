import Domain
import Foundation

// MARK: - RawRecord

/// A Kinto record as the sync path keeps it: the three fields it acts on, plus the
/// record's exact bytes as the server sent them, to store without re-encoding.
///
/// Tombstones (`{"id", "last_modified", "deleted": true}`) are records too.
public struct RawRecord: Identifiable, Sendable, Hashable {
    public let id: String
    /// The server's timestamp for this version, in milliseconds since 1970.
    public let lastModified: Int
    /// Whether this is a tombstone left by a delete (`_since` lists return them).
    public let deleted: Bool
    /// The record object's bytes, from `{` to `}`, as the server sent them (non-ASCII
    /// text stays `\uXXXX`-escaped).
    public let bytes: Data

    public init(id: String, lastModified: Int, deleted: Bool = false, bytes: Data) {
        self.id = id
        self.lastModified = lastModified
        self.deleted = deleted
        self.bytes = bytes
    }

    /// Reads one record object (`{"id": …, "last_modified": …, …}`).
    /// - Throws: `APIError.decoding` when the bytes are not one, with the byte offset.
    public init(json: Data) throws(APIError) {
        do throws(JSONScanError) {
            self = try JSONByteScanner.withScanner(over: json) { (scanner) throws(JSONScanError) in
                let record = try scanner.scanRecord()
                try scanner.expectEnd()
                return record
            }
        } catch {
            throw .decoding(error.decodingFailure)
        }
    }

    /// The record's fields as `JSONValue`s, for field-by-field work (three-way merges).
    ///
    /// Uses `JSONDecoder`: this is the per-record merge path, not the per-page sync path.
    public func fields() throws(APIError) -> [String: JSONValue] {
        do {
            return try JSONDecoder().decode([String: JSONValue].self, from: bytes)
        } catch {
            throw .decoding(DecodingFailure(path: "record \(id)", message: DecodingFailure.message(for: error)))
        }
    }
}

extension RawRecord: CustomStringConvertible {
    public var description: String {
        "RawRecord(\(id) @\(lastModified)\(deleted ? ", deleted" : ""), \(bytes.count) bytes)"
    }
}

// MARK: - Scanning a record

extension JSONByteScanner {
    /// Reads a record object: `id` (string), `last_modified` (integer) and `deleted`
    /// (boolean, optional) from its top level; every other member is validated and skipped.
    mutating func scanRecord() throws(JSONScanError) -> RawRecord {
        skipWhitespace()
        let start = offset
        guard peek == UInt8(ascii: "{") else {
            throw fail(peek == nil ? "unexpected end of input, expected a record" : "expected a record object")
        }
        var id: String?
        var lastModified: Int?
        var deleted = false
        try forEachMember { key, scanner throws(JSONScanError) in
            if scanner.key(key, is: "id") {
                id = try scanner.readString("a record's \"id\"")
            } else if scanner.key(key, is: "last_modified") {
                lastModified = try scanner.readInteger("\"last_modified\"")
            } else if scanner.key(key, is: "deleted") {
                deleted = try scanner.readBool("\"deleted\"")
            } else {
                try scanner.skipValue()
            }
        }
        guard let id else { throw fail("a record has no \"id\"", at: start) }
        guard let lastModified else { throw fail("record \(id) has no \"last_modified\"", at: start) }
        return RawRecord(id: id, lastModified: lastModified, deleted: deleted, bytes: Data(bytes: base + start, count: offset - start))
    }

    /// Finds the value at `path` (object keys from the top) and returns its byte range,
    /// validating the whole document on the way. Nil when a key is absent.
    mutating func findValue(at path: ArraySlice<String>) throws(JSONScanError) -> Range<Int>? {
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
}
