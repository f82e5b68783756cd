import Foundation
import Records
import Vocabulary

// MARK: - SealedRecord

/// A reader's record as the server keeps it once sealed: what Kinto needs in the clear,
/// and everything else inside one envelope.
///
/// ```json
/// {"id": "…", "last_modified": 1700000000000,
///  "shelf_enc": {"v": 2, "kid": "3f9c0d2a7b1e4c55", "seq": 7, "n": "<24-byte nonce, base64>", "c": "<ciphertext, base64>"}}
/// ```
///
/// A reader's deletion is a sealed record too, marked `"del": true` (bound into the
/// authenticated data like `seq`): the server learns which records are deletions, as it
/// did from Kinto's tombstones, and cannot turn a deletion into a live version or back.
///
/// `seq` orders the versions of one record (each write one more than the version it was
/// made from) and is bound into the seal's authenticated data: a server that puts an older
/// envelope back cannot make it look newer. Format 1 envelopes (no `seq`) are read while an
/// account migrates to format 2 (docs/encryption.md, "Migrating from format 1").
///
/// Nothing else may stand beside the envelope: a sealed record with another member in
/// the clear is refused as malformed rather than passed on unauthenticated.
public struct SealedRecord: Hashable, Sendable {
    /// The envelope's member name.
    public static let member = WireEnvelope.member
    /// The format new seals are written in.
    public static let formatVersion = 2
    /// The format of envelopes written before sequence numbers, read during a migration.
    public static let legacyFormatVersion = 1
    /// The largest ciphertext opened: far beyond any record Shelf writes, so a server
    /// cannot make a device decode without bound.
    public static let maximumCiphertextBytes = 4 << 20
    /// The largest sequence number: JSON numbers stay exact up to 2^53.
    public static let maximumSequence: Int64 = 1 << 53 - 1

    public let id: String
    /// The server's stamp as it sent it; nil before the server has seen the record.
    public let lastModified: JSONValue?
    public let format: Int
    public let keyID: KeyID
    /// The version's sequence number (format 2); nil for format 1.
    public let sequence: Int64?
    /// The version is the reader's deletion of the record (format 2).
    public let isDeletion: Bool
    let nonce: [UInt8]
    let ciphertext: [UInt8]

    init(
        id: String, lastModified: JSONValue?, format: Int, keyID: KeyID, sequence: Int64?, isDeletion: Bool = false,
        nonce: [UInt8], ciphertext: [UInt8]
    ) {
        self.id = id
        self.lastModified = lastModified
        self.format = format
        self.keyID = keyID
        self.sequence = sequence
        self.isDeletion = isDeletion
        self.nonce = nonce
        self.ciphertext = ciphertext
    }

    /// Whether `record` carries an envelope (it may still be malformed).
    public static func isSealed(_ record: [String: JSONValue]) -> Bool {
        record[member] != nil
    }

    // MARK: - JSON form

    public var fields: [String: JSONValue] {
        var envelope: [String: JSONValue] = [
            "v": .number(Double(format)),
            "kid": .string(keyID.rawValue),
            "n": .string(Data(nonce).base64EncodedString()),
            "c": .string(Data(ciphertext).base64EncodedString()),
        ]
        if let sequence { envelope["seq"] = .number(Double(sequence)) }
        if isDeletion { envelope["del"] = .bool(true) }
        var fields: [String: JSONValue] = ["id": .string(id), Self.member: .object(envelope)]
        fields["last_modified"] = lastModified
        return fields
    }

    /// Reads an envelope from a record's fields.
    /// - Throws: `.unsupportedFormat` for another envelope version, `.malformed` for any
    ///   other shape.
    public init(fields: [String: JSONValue]) throws(EncryptionError) {
        let record = FieldReader(fields, of: "a sealed record")
        try record.requireOnly(["id", "last_modified", Self.member])
        let envelope = FieldReader(try record.object(Self.member), of: "the envelope")
        let version = try envelope.integer("v", in: 1...Int(Int32.max))
        let sequence: Int64?
        var deletion = false
        switch version {
        case Self.formatVersion:
            try envelope.requireOnly(["v", "kid", "seq", "del", "n", "c"])
            sequence = Int64(try envelope.integer("seq", in: 1...Int(Self.maximumSequence)))
            if let mark = envelope.fields["del"] {
                guard mark == .bool(true) else { throw .malformed(reason: "the envelope's \"del\" is not true") }
                deletion = true
            }
        case Self.legacyFormatVersion:
            try envelope.requireOnly(["v", "kid", "n", "c"])
            sequence = nil
        default:
            throw .unsupportedFormat(version: version)
        }
        self.init(
            id: try record.string("id"),
            lastModified: fields["last_modified"],
            format: version,
            keyID: try envelope.keyID("kid"),
            sequence: sequence,
            isDeletion: deletion,
            nonce: try envelope.base64("n", length: XChaCha20Poly1305.nonceLength),
            ciphertext: try envelope.base64("c", maximum: Self.maximumCiphertextBytes))
    }

    /// Reads the envelope the scanner found in a record (`RawRecord.envelope`), from the
    /// record's own bytes: the same reading that gave the record its id and stamp.
    /// - Throws: as `init(fields:)`; `.notSealed` when the record has no envelope.
    public init(scanned record: RawRecord, address: RecordAddress) throws(EncryptionError) {
        let header = try Header(scanned: record, address: address)
        let nonce = try Self.base64(record.json, header.nonce, name: "n", limit: XChaCha20Poly1305.nonceLength, exact: true)
        let ciphertext = try Self.base64(record.json, header.ciphertext, name: "c", limit: Self.maximumCiphertextBytes, exact: false)
        self.init(
            id: record.id, lastModified: .number(Double(record.lastModified)), format: header.format, keyID: header.keyID,
            sequence: header.sequence, isDeletion: header.isDeletion, nonce: nonce, ciphertext: ciphertext)
    }

    // MARK: - The envelope's members in the clear

    /// What a scanned envelope says in the clear, checked, with where its nonce and
    /// ciphertext text lie in the record's bytes: all that opening needs before the cipher,
    /// read without decoding anything (`RecordOpener` decodes into buffers it keeps).
    struct Header {
        var format: Int
        var keyID: KeyID
        var sequence: Int64?
        var isDeletion: Bool
        /// The base64 text of the nonce and the ciphertext, as byte offsets into `json`.
        var nonce: Range<Int>
        var ciphertext: Range<Int>

        /// - Parameter known: a key id already checked (the last record's): an envelope naming
        ///   it is not checked again, and shares its text.
        /// - Throws: as `SealedRecord.init(fields:)`; `.notSealed` when the record has no envelope.
        init(scanned record: RawRecord, address: RecordAddress, known: KeyID? = nil) throws(EncryptionError) {
            guard let envelope = record.envelope else { throw .notSealed(record: address) }
            guard envelope.isObject else { throw .malformed(reason: "the envelope of \(address) is not an object") }
            guard envelope.membersBeside == 0, !record.isDeleted else {
                throw .malformed(reason: "\(address) has member(s) in the clear beside its envelope")
            }
            guard let version = envelope.version, version >= 1 else { throw .malformed(reason: "the envelope's \"v\" is not an integer in 1...\(Int32.max)") }
            switch version {
            case SealedRecord.formatVersion:
                guard let value = envelope.sequence, (1...Int(SealedRecord.maximumSequence)).contains(value) else {
                    throw .malformed(reason: "the envelope's \"seq\" is not an integer in 1...\(SealedRecord.maximumSequence)")
                }
                sequence = Int64(value)
            case SealedRecord.legacyFormatVersion:
                guard envelope.sequence == nil, !envelope.isDeletion else { throw .malformed(reason: "the envelope has 1 member(s) Shelf does not write") }
                sequence = nil
            default:
                throw .unsupportedFormat(version: version)
            }
            guard envelope.unexpectedMembers == 0 else {
                throw .malformed(reason: "the envelope has \(envelope.unexpectedMembers) member(s) Shelf does not write")
            }
            guard let kid = envelope.keyID else { throw .malformed(reason: "the envelope's \"kid\" is not a string") }
            guard let nonceRange = envelope.nonce, Self.fits(nonceRange, in: record.json, limit: XChaCha20Poly1305.nonceLength) else {
                throw .malformed(reason: "the envelope's \"n\" is not base64 of \(XChaCha20Poly1305.nonceLength) bytes")
            }
            guard let ciphertextRange = envelope.ciphertext, Self.fits(ciphertextRange, in: record.json, limit: SealedRecord.maximumCiphertextBytes) else {
                throw .malformed(reason: "the envelope's \"c\" is not base64 of at most \(SealedRecord.maximumCiphertextBytes) bytes")
            }
            format = version
            // NB: a page's records are sealed under one key or few, so the 16 hex digits are
            // checked once per key met in a row, not at every record.
            if let known, known.rawValue == kid { keyID = known } else { keyID = try KeyID(kid) }
            isDeletion = envelope.isDeletion
            nonce = nonceRange
            ciphertext = ciphertextRange
        }

        /// Whether base64 text at `range` lies within `json` and is short enough to decode
        /// to at most `limit` bytes: checked before anything is decoded.
        static func fits(_ range: Range<Int>, in json: Data, limit: Int) -> Bool {
            range.count <= (limit / 3 + 1) * 4 && range.lowerBound >= 0 && range.upperBound <= json.count
        }
    }

    /// Base64 text at `range` of `json`, decoded; its length is checked before decoding.
    private static func base64(_ json: Data, _ range: Range<Int>, name: String, limit: Int, exact: Bool) throws(EncryptionError) -> [UInt8] {
        let shape = exact ? "base64 of \(limit) bytes" : "base64 of at most \(limit) bytes"
        guard Header.fits(range, in: json, limit: limit) else { throw .malformed(reason: "the envelope's \"\(name)\" is not \(shape)") }
        let decoded = json.withUnsafeBytes { bytes in
            Base64.decode(UnsafeRawBufferPointer(rebasing: bytes[range]), maximum: limit)
        }
        guard let decoded, !exact || decoded.count == limit else { throw .malformed(reason: "the envelope's \"\(name)\" is not \(shape)") }
        return decoded
    }
}
