import Domain
import Foundation

// MARK: - SealedRecord

/// A reader's record as the server keeps it once sealed: what Kinto needs in the clear,
/// and everything else inside one envelope.
///
/// ```json
/// {"id": "…", "last_modified": 1700000000000,
///  "shelf_enc": {"v": 1, "kid": "3f9c0d2a7b1e4c55", "n": "<24-byte nonce, base64>", "c": "<ciphertext, base64>"}}
/// ```
///
/// Nothing else may stand beside the envelope: a sealed record with another member in
/// the clear is refused as malformed rather than passed on unauthenticated.
public struct SealedRecord: Hashable, Sendable {
    /// The envelope's member name.
    public static let member = "shelf_enc"
    public static let formatVersion = 1
    /// The largest ciphertext opened: far beyond any record Shelf writes, so a server
    /// cannot make a device decode without bound.
    public static let maximumCiphertextBytes = 4 << 20

    public let id: String
    /// The server's stamp as it sent it; nil before the server has seen the record.
    public let lastModified: JSONValue?
    public let keyID: KeyID
    let nonce: [UInt8]
    let ciphertext: [UInt8]

    init(id: String, lastModified: JSONValue?, keyID: KeyID, nonce: [UInt8], ciphertext: [UInt8]) {
        self.id = id
        self.lastModified = lastModified
        self.keyID = keyID
        self.nonce = nonce
        self.ciphertext = ciphertext
    }

    /// Whether `record` carries an envelope (it may still be malformed).
    public static func isSealed(_ record: [String: JSONValue]) -> Bool {
        record[member] != nil
    }

    // MARK: - JSON form

    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "id": .string(id),
            Self.member: .object([
                "v": .number(Double(Self.formatVersion)),
                "kid": .string(keyID.rawValue),
                "n": .string(Data(nonce).base64EncodedString()),
                "c": .string(Data(ciphertext).base64EncodedString()),
            ]),
        ]
        fields["last_modified"] = lastModified
        return fields
    }

    /// - Throws: `.unsupportedFormat` for another envelope version, `.malformed` for any
    ///   other shape.
    public init(fields: [String: JSONValue]) throws(EncryptionError) {
        let record = FieldReader(fields, of: "a sealed record")
        try record.requireOnly(["id", "last_modified", Self.member])
        let envelope = FieldReader(try record.object(Self.member), of: "the envelope")
        try envelope.requireOnly(["v", "kid", "n", "c"])
        let version = try envelope.integer("v", in: 1...Int(Int32.max))
        guard version == Self.formatVersion else { throw .unsupportedFormat(version: version) }
        self.init(
            id: try record.string("id"),
            lastModified: fields["last_modified"],
            keyID: try envelope.keyID("kid"),
            nonce: try envelope.base64("n", length: XChaCha20Poly1305.nonceLength),
            ciphertext: try envelope.base64("c", maximum: Self.maximumCiphertextBytes))
    }
}
