import Foundation
#if canImport(Glibc)
import Glibc
#endif
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
        header: SealedRecord.Header, lastModified: Int64, content: UnsafeRawBufferPointer, address: RecordAddress,
        indexingFor collection: CollectionName?
    ) throws(EncryptionError) {
        try self.init(
            format: header.format, keyID: header.keyID, sequence: header.sequence, isDeletion: header.isDeletion,
            lastModified: lastModified, content: content, address: address, indexingFor: collection)
    }

    init(
        sealed: SealedRecord, lastModified: Int64, content: UnsafeRawBufferPointer, address: RecordAddress,
        indexingFor collection: CollectionName?
    ) throws(EncryptionError) {
        try self.init(
            format: sealed.format, keyID: sealed.keyID, sequence: sealed.sequence, isDeletion: sealed.isDeletion,
            lastModified: lastModified, content: content, address: address, indexingFor: collection)
    }

    private init(
        format: Int, keyID: KeyID, sequence: Int64?, isDeletion: Bool, lastModified: Int64, content: UnsafeRawBufferPointer,
        address: RecordAddress, indexingFor collection: CollectionName?
    ) throws(EncryptionError) {
        let reading: ContentReading
        do {
            reading = try ContentReading(
                content, indexing: collection.map { RecordIndexing.wireNames(for: $0) }, keepingLineage: isDeletion)
        } catch {
            throw .malformed(reason: "\(address) opened, but its sealed fields are not what Shelf writes (\(error.message))")
        }
        guard reading.forbidden == 0 else {
            throw .malformed(reason: "\(address) opened, but its sealed fields hold members Shelf never seals")
        }
        if isDeletion, reading.memberCount != (reading.hasLineage ? 1 : 0) {
            throw .malformed(reason: "\(address) opened to a deletion with other members than its lineage")
        }
        self.format = format
        self.keyID = keyID
        self.sequence = sequence
        revision = reading.lastRevision
        if isDeletion {
            var fields: [String: JSONValue] = [
                "id": .string(address.id), "last_modified": .number(Double(lastModified)), "deleted": .bool(true),
                RecordSealer.lineageField: .array(reading.lineage.map(JSONValue.string)),
            ]
            if let sequence { fields[RecordSealer.sequenceField] = .number(Double(sequence)) }
            let json: Data
            do { json = try WireJSON.data(fields) } catch { throw .malformed(reason: "\(address)'s deletion cannot be written as JSON") }
            record = RawRecord(id: address.id, lastModified: lastModified, isDeleted: true, json: json)
        } else {
            var indexed = reading.indexed
            // NB: new: a content holding an "id" was refused above (`forbidden`).
            indexed?.appendNew("id", .string(address.id))
            record = RawRecord(
                id: address.id, lastModified: lastModified,
                json: Self.spliced(
                    content, members: reading.memberCount, openingBrace: reading.openingBrace, id: address.id,
                    lastModified: lastModified, sequence: sequence),
                indexedFields: collection.flatMap { collection in indexed.map { IndexedFields(collection: collection, fields: $0) } })
        }
    }

    /// `{"_shelf_seq":S,"id":"…","last_modified":N,` + the content after its `{`, written
    /// straight into the record's bytes, allocated once at their length.
    /// NB: the id needs no escaping: `RecordID.validate` allows only letters, digits, `-` and `_`.
    private static func spliced(
        _ content: UnsafeRawBufferPointer, members: Int, openingBrace: Int, id: String, lastModified: Int64, sequence: Int64?
    ) -> Data {
        var id = id
        let rest = members == 0 ? UnsafeRawBufferPointer(start: nil, count: 0)
            : UnsafeRawBufferPointer(rebasing: content[(openingBrace + 1)...])
        return id.withUTF8 { id in
            var count = 1 + SplicedNames.id.count + id.count + SplicedNames.lastModified.count + DecimalText.length(lastModified) + 1 + rest.count
            if let sequence { count += SplicedNames.sequence.count + DecimalText.length(sequence) + 1 }
            // NB: written into fresh memory that `Data` then owns: `Data(count:)` zeroed
            // every byte first, and that was two fifths of splicing. A failed allocation
            // ends the process, as Swift's own allocations do.
            guard let memory = malloc(count) else { fatalError("out of memory for a record of \(count) bytes") }
            // NB: a cursor, not nested functions over a captured offset: those were boxed
            // and checked for exclusive access at every byte.
            var cursor = memory.assumingMemoryBound(to: UInt8.self)
            cursor = put(UInt8(ascii: "{"), at: cursor)
            if let sequence {
                cursor = SplicedNames.sequence.withUnsafeBytes { put($0, at: cursor) }
                cursor = DecimalText.write(sequence, at: cursor)
                cursor = put(UInt8(ascii: ","), at: cursor)
            }
            cursor = SplicedNames.id.withUnsafeBytes { put($0, at: cursor) }
            cursor = put(UnsafeRawBufferPointer(id), at: cursor)
            cursor = SplicedNames.lastModified.withUnsafeBytes { put($0, at: cursor) }
            cursor = DecimalText.write(lastModified, at: cursor)
            if rest.isEmpty {
                cursor = put(UInt8(ascii: "}"), at: cursor)
            } else {
                cursor = put(UInt8(ascii: ","), at: cursor)
                cursor = put(rest, at: cursor)
            }
            // NB: every byte of `count` is written: the lengths above are the parts'.
            assert(UnsafeMutableRawPointer(cursor) == memory + count)
            return Data(bytesNoCopy: memory, count: count, deallocator: .free)
        }
    }

    /// Copies `bytes` to `cursor`; the cursor after them.
    private static func put(_ bytes: UnsafeRawBufferPointer, at cursor: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return cursor }
        UnsafeMutableRawPointer(cursor).copyMemory(from: base, byteCount: bytes.count)
        return cursor + bytes.count
    }

    private static func put(_ byte: UInt8, at cursor: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        cursor.pointee = byte
        return cursor + 1
    }

    /// The spliced members' names, as bytes.
    private enum SplicedNames {
        static let sequence = Array("\"\(RecordSealer.sequenceField)\":".utf8)
        static let id = Array("\"id\":\"".utf8)
        static let lastModified = Array("\",\"last_modified\":".utf8)
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

    /// - Parameter keepingLineage: keep the lineage's entries (a deletion's bytes carry
    ///   them); otherwise only its last entry is read into a `String`.
    init(_ content: UnsafeRawBufferPointer, indexing names: [WireFields.Name]?, keepingLineage: Bool) throws(JSONScanError) {
        // NB: the scanner is made here, not through `withScanner`: that generic entry
        // point cost an eighth of reading a content, a first sync reads 100,000 of them.
        guard let start = content.baseAddress, content.count > 0 else {
            throw JSONScanError(offset: 0, message: "the body is empty")
        }
        var scanner = JSONByteScanner(base: start.assumingMemoryBound(to: UInt8.self), count: content.count)
        if let names {
            indexed = WireFields()
            indexed?.reserve(names.count + 1)
        }
        var lastEntry: JSONByteScanner.StringToken?
        scanner.skipWhitespace()
        openingBrace = scanner.offset
        try scanner.forEachMember { key, scanner throws(JSONScanError) in
            memberCount += 1
            // NB: only a name that starts as one of the six below (or is escaped) is
            // compared with them: most of a record's names are none of them.
            let first = key.hasEscapes ? nil : scanner.base[key.start]
            let mayBeNamed = first == nil || first == UInt8(ascii: "i") || first == UInt8(ascii: "l")
                || first == UInt8(ascii: "d") || first == UInt8(ascii: "_")
            if mayBeNamed, scanner.key(key, is: "id") || scanner.key(key, is: "last_modified") || scanner.key(key, is: "deleted")
                || scanner.key(key, is: "_shelf_seq") || scanner.key(key, is: "_shelf_deleted") {
                forbidden += 1
                try scanner.skipValue()
            } else if mayBeNamed, scanner.key(key, is: "_shelf_revs") {
                hasLineage = true
                try scanner.forEachElement { scanner throws(JSONScanError) in
                    scanner.skipWhitespace()
                    if scanner.peek == UInt8(ascii: "\"") {
                        // NB: only the last entry is decoded, unless the whole lineage is kept.
                        let entry = try scanner.scanString()
                        lastEntry = entry
                        if keepingLineage, lineage.count < OpenedRecord.maximumLineage {
                            lineage.append(scanner.decode(entry))
                        }
                    } else {
                        try scanner.skipValue()
                    }
                }
            } else if let names, try scanner.readIndexedMember(key, of: names, into: &indexed!) {
                // NB: `indexed!` is safe: it is set whenever `names` is.
            } else {
                try scanner.skipValue()
            }
        }
        try scanner.expectEnd()
        if let lastEntry { lastRevision = scanner.decode(lastEntry) }
    }
}
