import CSodium
import Domain
import Foundation
import Records

// MARK: - RecordSealer

/// Seals a reader's records for the server and opens what the server sends back: the
/// sync engine's wire boundary. Everything above it — the store, the three-way merge
/// against the plaintext base, lineage — works on plaintext field dictionaries as before.
///
/// Every field of a record except the server's own (`id`, `last_modified`, `deleted`),
/// `_shelf_revs` included, goes into the envelope (`SealedRecord`). The seal is
/// XChaCha20-Poly1305 with a fresh random nonce, whose authenticated data binds the
/// format version, the key id, the bucket, the collection and the record id: a
/// ciphertext moved to another record or collection does not open there. New seals use
/// the keyring's current key; records sealed with an older one still open.
public struct RecordSealer: Sendable {
    public let keyring: Keyring
    /// The bucket the records live in, as the sync engine names it in its URLs.
    public let bucket: String

    /// The plaintext is padded to a multiple of this many bytes, so the server learns a
    /// record's size only to within it.
    static let paddingBlock = 64

    public init(keyring: Keyring, bucket: String) {
        self.keyring = keyring
        self.bucket = bucket
    }

    // MARK: - Sealing

    /// The record as the server should keep it: `id`, `last_modified` when present, and the
    /// envelope. A tombstone stays a tombstone (`id`, `last_modified`, `deleted: true`).
    /// - Throws: `.malformed` for a record without a valid id, or one already sealed
    ///   (sealing twice would hide the first envelope inside the second).
    public func seal(_ record: [String: JSONValue], in collection: String) throws(EncryptionError) -> [String: JSONValue] {
        let address = try address(of: record, in: collection)
        if Self.isTombstone(record) {
            return record.filter { ServerOwnedFields.names.contains($0.key) }
        }
        guard !SealedRecord.isSealed(record) else { throw .malformed(reason: "\(address) is sealed already") }
        var content = record
        ServerOwnedFields.removeAll(from: &content)
        let json: [UInt8]
        do {
            json = try Array(WireJSON.data(content))
        } catch {
            throw .malformed(reason: "\(address)'s fields cannot be written as JSON")
        }
        let key = keyring.current
        let padded = try Self.padded(json)
        let sealed = try XChaCha20Poly1305.seal(padded, associatedData: Self.associatedData(address, keyID: key.id), key: key.bytes)
        return SealedRecord(id: address.id, lastModified: record["last_modified"], keyID: key.id,
                            nonce: sealed.nonce, ciphertext: sealed.ciphertext).fields
    }

    // MARK: - Opening

    /// The record's fields as they were sealed, with the server's `id` and `last_modified`.
    /// A tombstone is returned as it came.
    /// - Throws: `.notSealed` for a plaintext record, `.unknownKey` for a key this keyring
    ///   lacks, `.tampered` when the seal does not verify here, `.unsupportedFormat` and
    ///   `.malformed` for an envelope Shelf did not write.
    public func open(_ record: [String: JSONValue], in collection: String) throws(EncryptionError) -> [String: JSONValue] {
        let address = try address(of: record, in: collection)
        if Self.isTombstone(record) { return record }
        guard SealedRecord.isSealed(record) else { throw .notSealed(record: address) }
        let sealed = try SealedRecord(fields: record)
        guard let key = keyring.key(for: sealed.keyID) else { throw .unknownKey(sealed.keyID) }
        // A padded plaintext is never empty, so a ciphertext of a tag alone was altered.
        guard let length = XChaCha20Poly1305.plaintextLength(ofCiphertext: sealed.ciphertext.count), length > 0 else {
            throw .tampered(record: address)
        }
        var padded = [UInt8](repeating: 0, count: length)
        let opened = padded.withUnsafeMutableBufferPointer { output in
            // NB: `baseAddress!` is safe: the buffer holds `length` > 0 bytes.
            XChaCha20Poly1305.open(sealed.ciphertext, nonce: sealed.nonce,
                                   associatedData: Self.associatedData(address, keyID: key.id),
                                   key: key.bytes, into: output.baseAddress!, count: length)
        }
        guard opened else { throw .tampered(record: address) }
        var fields = try Self.fields(fromPadded: padded, of: address)
        fields["id"] = .string(address.id)
        fields["last_modified"] = sealed.lastModified
        return fields
    }

    // MARK: - Parts

    private func address(of record: [String: JSONValue], in collection: String) throws(EncryptionError) -> RecordAddress {
        guard let id = record["id"]?.stringValue, (try? RecordID.validate(id)) != nil else {
            throw .malformed(reason: "a record in \(collection) has no valid id")
        }
        return RecordAddress(bucket: bucket, collection: collection, id: id)
    }

    private static func isTombstone(_ record: [String: JSONValue]) -> Bool {
        record["deleted"]?.boolValue == true
    }

    private static func associatedData(_ address: RecordAddress, keyID: KeyID) -> [UInt8] {
        AssociatedData.of([
            "shelf record", String(SealedRecord.formatVersion), keyID.rawValue,
            address.bucket, address.collection, address.id,
        ])
    }

    /// ISO/IEC 7816-4 padding (`sodium_pad`) to a multiple of `paddingBlock`.
    private static func padded(_ json: [UInt8]) throws(EncryptionError) -> [UInt8] {
        var buffer = json + [UInt8](repeating: 0, count: paddingBlock)
        var length = 0
        guard sodium_pad(&length, &buffer, json.count, paddingBlock, buffer.count) == 0 else {
            throw .malformed(reason: "a record could not be padded")
        }
        return Array(buffer.prefix(length))
    }

    /// The fields a verified plaintext holds; one that is not a padded JSON object of
    /// non-server fields was written by something other than Shelf.
    private static func fields(fromPadded padded: [UInt8], of address: RecordAddress) throws(EncryptionError) -> [String: JSONValue] {
        var length = 0
        var buffer = padded
        guard sodium_unpad(&length, &buffer, buffer.count, paddingBlock) == 0,
              let fields = try? WireJSON.fields(Data(buffer.prefix(length))),
              fields.keys.allSatisfy({ !ServerOwnedFields.names.contains($0) })
        else { throw .malformed(reason: "\(address) opened, but its sealed fields are not what Shelf writes") }
        return fields
    }
}
