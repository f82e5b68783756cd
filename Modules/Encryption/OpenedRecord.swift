import Foundation
import Records
import Vocabulary

// MARK: - OpenedRecord

/// A sealed record opened: the record as the store keeps it, and what its envelope said
/// of the version — which key sealed it, its sequence number and its lineage's last
/// revision — for the rules that decide whether a device takes it (Modules/Sync/Encryption).
///
/// The store's bytes are the sealed content with the server's members spliced in
/// (`{"_shelf_seq": S, "id": …, "last_modified": …, <content>}`): the content is read once,
/// to check it, and never decoded into a dictionary and written again.
public struct OpenedRecord: Sendable {
    /// A live record as the store keeps it, or — for a sealed deletion — a tombstone
    /// (`isDeleted`) whose bytes carry the deletion's lineage and sequence number.
    public let record: RawRecord
    public let format: Int
    public let keyID: KeyID
    /// The version's sequence number; nil for a format 1 envelope, which had none.
    public let sequence: Int64?
    /// The last revision id of the version's lineage (`_shelf_revs`), when it has one.
    public let revision: String?

    /// A reader's deletion, sealed.
    public var isDeletion: Bool { record.isDeleted }

    // NB: `isDeletion` comes from the envelope's authenticated `del`, never from the content.

    /// The most lineage entries read from a sealed content (Storage keeps 16).
    static let maximumLineage = 64

    /// - Parameter collection: also keep the members the store's columns for this
    ///   collection are computed from (`RawRecord.indexedFields`), read in the same pass,
    ///   so the store does not read the record again.
    init(
        sealed: SealedRecord, lastModified: Int64, content: [UInt8], address: RecordAddress, indexingFor collection: CollectionName?
    ) throws(EncryptionError) {
        let reading: ContentReading
        do {
            reading = try ContentReading(content, indexing: collection.map { RecordIndexing.wireNames(for: $0) })
        } catch {
            throw .malformed(reason: "\(address) opened, but its sealed fields are not what Shelf writes (\(error.message))")
        }
        guard reading.forbidden == 0 else {
            throw .malformed(reason: "\(address) opened, but its sealed fields hold members Shelf never seals")
        }
        if sealed.isDeletion, reading.memberCount != (reading.hasLineage ? 1 : 0) {
            throw .malformed(reason: "\(address) opened to a deletion with other members than its lineage")
        }
        format = sealed.format
        keyID = sealed.keyID
        sequence = sealed.sequence
        revision = reading.lastRevision
        if sealed.isDeletion {
            var fields: [String: JSONValue] = [
                "id": .string(address.id), "last_modified": .number(Double(lastModified)), "deleted": .bool(true),
                RecordSealer.lineageField: .array(reading.lineage.map(JSONValue.string)),
            ]
            if let sequence = sealed.sequence { fields[RecordSealer.sequenceField] = .number(Double(sequence)) }
            let json: Data
            do { json = try WireJSON.data(fields) } catch { throw .malformed(reason: "\(address)'s deletion cannot be written as JSON") }
            record = RawRecord(id: address.id, lastModified: lastModified, isDeleted: true, json: json)
        } else {
            var indexed = reading.indexed
            indexed?.set("id", .string(address.id))
            record = RawRecord(
                id: address.id, lastModified: lastModified,
                json: Self.spliced(content, reading: reading, id: address.id, lastModified: lastModified, sequence: sealed.sequence),
                indexedFields: collection.flatMap { collection in indexed.map { IndexedFields(collection: collection, fields: $0) } })
        }
    }

    /// `{"_shelf_seq":S,"id":"…","last_modified":N,` + the content after its `{`.
    /// NB: the id needs no escaping: `RecordID.validate` allows only letters, digits, `-` and `_`.
    private static func spliced(_ content: [UInt8], reading: ContentReading, id: String, lastModified: Int64, sequence: Int64?) -> Data {
        var head = "{"
        if let sequence { head += "\"\(RecordSealer.sequenceField)\":\(sequence)," }
        head += "\"id\":\"\(id)\",\"last_modified\":\(lastModified)"
        var json = Data(capacity: head.utf8.count + content.count + 1)
        json.append(contentsOf: head.utf8)
        if reading.memberCount == 0 {
            json.append(UInt8(ascii: "}"))
        } else {
            json.append(UInt8(ascii: ","))
            json.append(contentsOf: content[(reading.openingBrace + 1)...])
        }
        return json
    }
}

// MARK: - Reading the content

/// One pass of the scanner over an opened content: it must be one JSON object without a
/// member named twice; what it says of deletion and lineage is kept.
private struct ContentReading {
    var memberCount = 0
    var forbidden = 0
    var hasLineage = false
    var lineage: [String] = []
    /// The lineage's last string, however long the lineage.
    var lastRevision: String?
    /// Where the object's `{` is.
    var openingBrace = 0
    /// The indexed members, when asked for.
    var indexed: WireFields?

    init(_ content: [UInt8], indexing names: [WireFields.Name]?) throws(JSONScanError) {
        var reading = ContentReading(empty: ())
        if names != nil { reading.indexed = WireFields() }
        try JSONByteScanner.withScanner(over: content) { (scanner) throws(JSONScanError) in
            scanner.skipWhitespace()
            reading.openingBrace = scanner.offset
            try scanner.forEachMember { key, scanner throws(JSONScanError) in
                reading.memberCount += 1
                if scanner.key(key, is: "id") || scanner.key(key, is: "last_modified") || scanner.key(key, is: "deleted")
                    || scanner.key(key, is: "_shelf_seq") || scanner.key(key, is: "_shelf_deleted") {
                    reading.forbidden += 1
                    try scanner.skipValue()
                } else if scanner.key(key, is: "_shelf_revs") {
                    reading.hasLineage = true
                    try scanner.forEachElement { scanner throws(JSONScanError) in
                        scanner.skipWhitespace()
                        if scanner.peek == UInt8(ascii: "\"") {
                            let entry = try scanner.readString("a lineage entry")
                            reading.lastRevision = entry
                            if reading.lineage.count < OpenedRecord.maximumLineage { reading.lineage.append(entry) }
                        } else {
                            try scanner.skipValue()
                        }
                    }
                } else if let names, try scanner.readIndexedMember(key, of: names, into: &reading.indexed!) {
                    // NB: `indexed!` is safe: it is set whenever `names` is.
                } else {
                    try scanner.skipValue()
                }
            }
            try scanner.expectEnd()
        }
        self = reading
    }

    private init(empty: Void) {}
}
