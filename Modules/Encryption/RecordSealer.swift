import CSodium
import Foundation
import Records
import Vocabulary

// MARK: - RecordSealer

/// Seals a reader's records for the server and opens what the server sends back: the
/// sync engine's wire boundary. Everything above it — the store, the three-way merge
/// against the plaintext base, lineage — works on plaintext records as before.
///
/// Every field of a record except the server's own (`id`, `last_modified`, `deleted`) and
/// the sequence number, `_shelf_revs` included, goes into the envelope (`SealedRecord`). The
/// seal is XChaCha20-Poly1305 with a fresh random nonce, whose authenticated data binds the
/// format version, the key id, the bucket, the collection, the record id and the version's
/// sequence number: a ciphertext moved to another record or collection does not open
/// there, and an old one cannot pass for a newer version. A reader's deletion is sealed
/// too (`sealDeletion`): a record marked `del` in its envelope (bound like `seq`) whose
/// content is the deletion's lineage, so devices tell it from a tombstone someone else
/// wrote. New seals use the keyring's current key; records sealed with an older one
/// still open.
public struct RecordSealer: Sendable {
    public let keyring: Keyring
    /// The bucket the records live in, as the sync engine names it in its URLs.
    public let bucket: String

    /// The plaintext is padded to a multiple of this many bytes, so the server learns a
    /// record's size only to within it.
    static let paddingBlock = 64

    /// The member of a record's fields that holds its sequence number once opened; it is
    /// carried in the envelope (`seq`), never inside the ciphertext.
    public static let sequenceField = VersionFields.sequence
    /// The member `open(_:in:)` adds to the fields of a sealed deletion (never sealed itself).
    public static let deletionField = VersionFields.deletion
    /// The lineage member (`RecordLineage.field` in Records), read for a deletion's revision.
    static let lineageField = VersionFields.lineage

    public init(keyring: Keyring, bucket: String) {
        self.keyring = keyring
        self.bucket = bucket
    }

    // MARK: - Sealing

    /// The record as the server should keep it: `id`, `last_modified` when present, and the
    /// envelope, sealed as version `sequence` of the record.
    /// - Parameters:
    ///   - record: the record's fields; `id` is required, server members and `_shelf_seq`
    ///     are not sealed.
    ///   - sequence: 1 for a new record, else one more than the version it was made from.
    /// - Throws: `.malformed` for a record without a valid id, one already sealed (sealing
    ///   twice would hide the first envelope inside the second), a tombstone (a deletion is
    ///   `sealDeletion`), or a sequence number out of range.
    public func seal(_ record: [String: JSONValue], in collection: String, sequence: Int64) throws(EncryptionError) -> [String: JSONValue] {
        try seal(record, in: collection, sequence: sequence, nonce: nil)
    }

    /// A reader's deletion of `id`, sealed as version `sequence`: what the server keeps in
    /// place of the record, so every device can tell the reader removed it.
    /// - Parameter lineage: the lineage of the deletion (`_shelf_revs`), its own revision last.
    public func sealDeletion(id: String, lineage: [String], sequence: Int64, in collection: String) throws(EncryptionError) -> [String: JSONValue] {
        let content: [String: JSONValue] = ["id": .string(id), Self.lineageField: .array(lineage.map(JSONValue.string))]
        return try seal(content, in: collection, sequence: sequence, nonce: nil, deletion: true)
    }

    /// `seal` with a given nonce: the known-answer vectors only. Never reuse a nonce.
    func seal(
        _ record: [String: JSONValue], in collection: String, sequence: Int64, nonce: [UInt8]?, deletion: Bool = false
    ) throws(EncryptionError) -> [String: JSONValue] {
        let address = try address(of: record, in: collection)
        guard record["deleted"]?.boolValue != true else { throw .malformed(reason: "\(address) is a tombstone; a deletion is sealed with sealDeletion") }
        guard !SealedRecord.isSealed(record) else { throw .malformed(reason: "\(address) is sealed already") }
        guard record[Self.deletionField] == nil else { throw .malformed(reason: "\(address) carries the deletion mark") }
        guard (1...SealedRecord.maximumSequence).contains(sequence) else { throw .malformed(reason: "\(address)'s sequence number is out of range") }
        var content = record
        ServerOwnedFields.removeAll(from: &content)
        content.removeValue(forKey: Self.sequenceField)
        let json: [UInt8]
        do {
            json = try Array(WireJSON.data(content))
        } catch {
            throw .malformed(reason: "\(address)'s fields cannot be written as JSON")
        }
        let key = keyring.current
        let padded = try Self.padded(json)
        let associatedData = Self.associatedData(
            address, format: SealedRecord.formatVersion, keyID: key.id, sequence: sequence, deletion: deletion)
        let sealed = try XChaCha20Poly1305.seal(padded, associatedData: associatedData, key: key.bytes, nonce: nonce)
        return SealedRecord(
            id: address.id, lastModified: record["last_modified"], format: SealedRecord.formatVersion, keyID: key.id,
            sequence: sequence, isDeletion: deletion, nonce: sealed.nonce, ciphertext: sealed.ciphertext
        ).fields
    }

    // MARK: - Opening

    /// Opens a record as the scanner read it from the server (its envelope found in the
    /// same pass as its id and stamp: `RawRecord.envelope`).
    /// - Throws: `.notSealed` for a plaintext record or a tombstone, `.unknownKey` for a
    ///   key this keyring lacks, `.tampered` when the seal does not verify here,
    ///   `.unsupportedFormat` and `.malformed` for an envelope or content Shelf did not write.
    /// - Parameter indexing: the collection whose store columns the opened record's
    ///   members should be gathered for in the same pass (`RawRecord.indexedFields`).
    public func open(_ record: RawRecord, in collection: String, indexing: CollectionName? = nil) throws(EncryptionError) -> OpenedRecord {
        // NB: a page's records are opened with one `RecordOpener`, which keeps its buffers.
        try RecordOpener(self).open(record, in: collection, indexing: indexing)
    }

    /// Opens a sealed record given as fields (`id`, optional `last_modified`, the envelope).
    /// - Returns: the record's fields as they were sealed, with `id`, the server's
    ///   `last_modified` and `_shelf_seq`; a deletion's fields carry `_shelf_deleted`.
    public func open(_ record: [String: JSONValue], in collection: String) throws(EncryptionError) -> [String: JSONValue] {
        let address = try address(of: record, in: collection)
        guard SealedRecord.isSealed(record) else { throw .notSealed(record: address) }
        let sealed = try SealedRecord(fields: record)
        let content = try openContent(sealed, address: address)
        // NB: the content is checked as a scanned record's is (`OpenedRecord`): one rule for both readers.
        let opened = try content.withUnsafeBytes { content in
            Result { () throws(EncryptionError) in
                try OpenedRecord(sealed: sealed, lastModified: 0, content: content, address: address, indexingFor: nil)
            }
        }.get()
        var fields: [String: JSONValue]
        do {
            fields = try WireJSON.fields(opened.record.json)
        } catch {
            throw .malformed(reason: "\(address) opened, but its sealed fields are not what Shelf writes")
        }
        fields["last_modified"] = sealed.lastModified
        if sealed.isDeletion {
            fields["deleted"] = nil
            fields[Self.deletionField] = .bool(true)
        }
        return fields
    }

    /// The verified, unpadded content of an envelope.
    private func openContent(_ sealed: SealedRecord, address: RecordAddress) throws(EncryptionError) -> [UInt8] {
        guard let key = keyring.key(for: sealed.keyID) else { throw .unknownKey(sealed.keyID) }
        // A padded plaintext is never empty, so a ciphertext of a tag alone was altered.
        guard let length = XChaCha20Poly1305.plaintextLength(ofCiphertext: sealed.ciphertext.count), length > 0 else {
            throw .tampered(record: address)
        }
        let associatedData = Self.associatedData(
            address, format: sealed.format, keyID: key.id, sequence: sealed.sequence, deletion: sealed.isDeletion)
        var padded = [UInt8](repeating: 0, count: length)
        let opened = padded.withUnsafeMutableBufferPointer { output in
            // NB: `baseAddress!` is safe: the buffer holds `length` > 0 bytes.
            XChaCha20Poly1305.open(sealed.ciphertext, nonce: sealed.nonce, associatedData: associatedData,
                                   key: key.bytes, into: output.baseAddress!, count: length)
        }
        guard opened else { throw .tampered(record: address) }
        var unpadded = 0
        guard sodium_unpad(&unpadded, padded, padded.count, Self.paddingBlock) == 0 else {
            throw .malformed(reason: "\(address) opened, but its sealed fields are not what Shelf writes")
        }
        padded.removeSubrange(unpadded...)
        return padded
    }

    // MARK: - Parts

    private func address(of record: [String: JSONValue], in collection: String) throws(EncryptionError) -> RecordAddress {
        guard let id = record["id"]?.stringValue, (try? RecordID.validate(id)) != nil else {
            throw .malformed(reason: "a record in \(collection) has no valid id")
        }
        return RecordAddress(bucket: bucket, collection: collection, id: id)
    }

    /// `lp("shelf record", format, kid, bucket, collection, id[, seq, "live"|"deleted"])`:
    /// format 2 binds the sequence number and whether the version is a deletion; format 1
    /// had neither.
    static func associatedData(_ address: RecordAddress, format: Int, keyID: KeyID, sequence: Int64?, deletion: Bool) -> [UInt8] {
        var parts = ["shelf record", String(format), keyID.rawValue, address.bucket, address.collection, address.id]
        if let sequence { parts += [String(sequence), deletion ? "deleted" : "live"] }
        return AssociatedData.of(parts)
    }

    /// ISO/IEC 7816-4 padding (`sodium_pad`) to a multiple of `paddingBlock`.
    static func padded(_ json: [UInt8]) throws(EncryptionError) -> [UInt8] {
        var buffer = json + [UInt8](repeating: 0, count: paddingBlock)
        var length = 0
        guard sodium_pad(&length, &buffer, json.count, paddingBlock, buffer.count) == 0 else {
            throw .malformed(reason: "a record could not be padded")
        }
        return Array(buffer.prefix(length))
    }
}
