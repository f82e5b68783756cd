import CSodium
import Vocabulary
import Foundation
import Records

// MARK: - RecordOpener

/// Opens the sealed records of a page one after another, with the buffers a record needs
/// — its decoded ciphertext, its plaintext, its authenticated data — kept from one record
/// to the next: a first sync of a sealed library opens 100,000 records, and four
/// allocations and a dictionary of parts per record were a good part of what sealing cost
/// beside plaintext.
///
/// Not `Sendable`: one opener belongs to the one call that opens a page
/// (`WireSealing.opened`). `RecordSealer.open(_:in:indexing:)` opens one record with one.
public final class RecordOpener {
    public let sealer: RecordSealer
    private var nonce = [UInt8](repeating: 0, count: XChaCha20Poly1305.nonceLength)
    private var ciphertext: [UInt8] = []
    private var plaintext: [UInt8] = []
    private var associatedData: [UInt8] = []
    /// What the authenticated data's first parts were built for; they are the same for
    /// every record of a page sealed under one key.
    private var prefix: (format: Int, keyID: KeyID, collection: String, count: Int)?
    /// The last record's key and its id: the next record is most likely sealed under it.
    private var lastKey: (id: KeyID, key: DataKey)?

    public init(_ sealer: RecordSealer) {
        self.sealer = sealer
    }

    /// Opens a record as the scanner read it from the server, as
    /// `RecordSealer.open(_:in:indexing:)` says.
    public func open(_ record: RawRecord, in collection: String, indexing: CollectionName? = nil) throws(EncryptionError) -> OpenedRecord {
        guard (try? RecordID.validate(record.id)) != nil else { throw .malformed(reason: "a record in \(collection) has no valid id") }
        let address = RecordAddress(bucket: sealer.bucket, collection: collection, id: record.id)
        let header = try SealedRecord.Header(scanned: record, address: address, known: lastKey?.id)
        // NB: the order of the checks is `SealedRecord(scanned:)` then `openContent`'s, so
        // a record wrong in several ways is refused for the same reason either way.
        try decodeNonce(record.json, header.nonce)
        let ciphertextCount = try decodeCiphertext(record.json, header.ciphertext)
        guard let key = key(for: header.keyID) else { throw .unknownKey(header.keyID) }
        // A padded plaintext is never empty, so a ciphertext of a tag alone was altered.
        guard let length = XChaCha20Poly1305.plaintextLength(ofCiphertext: ciphertextCount), length > 0 else {
            throw .tampered(record: address)
        }
        buildAssociatedData(header, address: address)
        if plaintext.count < length { growPlaintext(to: length) }
        guard decrypt(ciphertextCount, key: key.bytes) else { throw .tampered(record: address) }
        let unpadded = plaintext.withUnsafeBytes { Self.unpaddedLength(UnsafeRawBufferPointer(rebasing: $0[..<length])) }
        guard let unpadded else {
            throw .malformed(reason: "\(address) opened, but its sealed fields are not what Shelf writes")
        }
        // NB: `withUnsafeBytes` rethrows untyped; a `Result` keeps the error's type.
        return try plaintext.withUnsafeBytes { bytes in
            Result { () throws(EncryptionError) in
                try OpenedRecord(
                    header: header, lastModified: record.lastModified, content: UnsafeRawBufferPointer(rebasing: bytes[..<unpadded]),
                    address: address, indexingFor: indexing)
            }
        }.get()
    }

    // MARK: - Parts

    /// The keyring's key for `id`, the last record's looked up once.
    private func key(for id: KeyID) -> DataKey? {
        if let lastKey, lastKey.id == id { return lastKey.key }
        guard let key = sealer.keyring.key(for: id) else { return nil }
        lastKey = (id, key)
        return key
    }

    /// Decodes the nonce's base64 into `nonce`.
    private func decodeNonce(_ json: Data, _ range: Range<Int>) throws(EncryptionError) {
        let written = json.withUnsafeBytes { json in
            nonce.withUnsafeMutableBytes { Base64.decode(UnsafeRawBufferPointer(rebasing: json[range]), into: $0) }
        }
        guard written == XChaCha20Poly1305.nonceLength else {
            throw .malformed(reason: "the envelope's \"n\" is not base64 of \(XChaCha20Poly1305.nonceLength) bytes")
        }
    }

    /// Decodes the ciphertext's base64 into `ciphertext`; its length.
    private func decodeCiphertext(_ json: Data, _ range: Range<Int>) throws(EncryptionError) -> Int {
        let count = json.withUnsafeBytes { json -> Int? in
            let text = UnsafeRawBufferPointer(rebasing: json[range])
            guard let length = Base64.decodedLength(of: text), length <= SealedRecord.maximumCiphertextBytes else { return nil }
            if ciphertext.count < length { ciphertext = [UInt8](repeating: 0, count: max(length, ciphertext.count * 2)) }
            return ciphertext.withUnsafeMutableBytes { Base64.decode(text, into: $0) }
        }
        guard let count else {
            throw .malformed(reason: "the envelope's \"c\" is not base64 of at most \(SealedRecord.maximumCiphertextBytes) bytes")
        }
        return count
    }

    /// `RecordSealer.associatedData` for this record, into `associatedData`: the parts
    /// before the id are kept while the format, key and collection stay the same.
    private func buildAssociatedData(_ header: SealedRecord.Header, address: RecordAddress) {
        if let prefix, prefix.format == header.format, prefix.keyID == header.keyID, prefix.collection == address.collection {
            associatedData.removeSubrange(prefix.count...)
        } else {
            associatedData.removeAll(keepingCapacity: true)
            for part in ["shelf record", String(header.format), header.keyID.rawValue, address.bucket, address.collection] {
                AssociatedData.append(part, to: &associatedData)
            }
            prefix = (header.format, header.keyID, address.collection, associatedData.count)
        }
        AssociatedData.append(address.id, to: &associatedData)
        if let sequence = header.sequence {
            AssociatedData.append(decimal: sequence, to: &associatedData)
            AssociatedData.append(header.isDeletion ? "deleted" : "live", to: &associatedData)
        }
    }

    /// The length of `padded` without its ISO/IEC 7816-4 padding, as `sodium_unpad` reads
    /// it: within the last `RecordSealer.paddingBlock` bytes, zeros back to one 0x80; nil
    /// when they are not that.
    ///
    /// Not in constant time, unlike `sodium_unpad`, and it need not be: it runs only once
    /// the tag has verified, so the padding is the sealer's own and tells an attacker
    /// nothing. It reads only the few bytes the padding holds, where `sodium_unpad` read the
    /// whole block for every record of a page.
    static func unpaddedLength(_ padded: UnsafeRawBufferPointer) -> Int? {
        let block = RecordSealer.paddingBlock
        guard padded.count >= block else { return nil }
        let lowest = padded.count - block
        var index = padded.count - 1
        while index > lowest, padded[index] == 0 { index -= 1 }
        return padded[index] == 0x80 ? index : nil
    }

    /// XChaCha20-Poly1305 open of the first `count` bytes of `ciphertext` into the front
    /// of `plaintext`; false when the tag does not verify.
    private func decrypt(_ count: Int, key: SecretBytes) -> Bool {
        var written: UInt64 = 0
        return plaintext.withUnsafeMutableBufferPointer { output in
            key.withPointer { key in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    output.baseAddress, &written, nil, ciphertext, UInt64(count), associatedData, UInt64(associatedData.count),
                    nonce, key) == 0
            }
        }
    }

    /// A larger plaintext buffer, the old one wiped.
    private func growPlaintext(to length: Int) {
        wipePlaintext()
        plaintext = [UInt8](repeating: 0, count: max(length, plaintext.count * 2))
    }

    private func wipePlaintext() {
        plaintext.withUnsafeMutableBytes { bytes in
            if let base = bytes.baseAddress { sodium_memzero(base, bytes.count) }
        }
    }

    deinit {
        // NB: the last record's plaintext stays in the buffer until here.
        wipePlaintext()
    }
}
