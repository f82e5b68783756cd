import Domain
import Encryption
import Foundation
import Records
import Services

// MARK: - ServerKeyring

/// The account's wrapped data keys, as one record on the server:
/// `/buckets/default/collections/shelf-keys/records/keyring`.
///
/// The server holds only what it cannot open: each data key sealed by a key of the
/// reader's passphrase (`WrappedKey`), the id of the key new records are sealed with,
/// and when encryption began. One record, written with `If-None-Match: *` the first
/// time and `If-Match` after, so two devices turning encryption on at once cannot both
/// win, and a rotation never loses another device's.
///
/// ```json
/// {"id": "keyring", "format": 1, "current": "3f9c0d2a7b1e4c55", "identity": "3f9c0d2a7b1e4c55", "enabled_at": 1700000000000,
///  "keys": {"3f9c0d2a7b1e4c55": {"format": 1, "kid": …, "kdf": …, "salt": …, "nonce": …, "ciphertext": …}}}
/// ```
struct ServerKeyring {
    static let format = 1
    static let recordID = "keyring"
    /// NB: the force try is safe: both names are literals of Kinto's id alphabet.
    static let path = try! KintoCollectionPath(bucket: KintoCollectionPath.userBucket, collection: "shelf-keys")

    var current: KeyID
    /// The key imported records' ids are keyed with (`KeyedIdentifier`): the first one,
    /// kept through rotations so a second import of a file finds the first one's records.
    var identity: KeyID
    var keys: [KeyID: WrappedKey]
    /// The keyring's server timestamp when encryption began (nil until it is known).
    var enabledAt: Int64?
    /// The record's version, for `If-Match`.
    var lastModified: Int64?

    /// The wrapped key new records are sealed with.
    var currentKey: WrappedKey? { keys[current] }

    // MARK: Reading

    /// The keyring on the server, nil when the account is not encrypted.
    /// - Throws: `EncryptionError.malformed` for a keyring Shelf did not write.
    static func fetch(_ client: APIClient) async throws -> ServerKeyring? {
        do {
            let record = try await KintoCollectionService(client: client, path: path).record(id: recordID)
            return try ServerKeyring(record)
        } catch APIError.notFound {
            return nil
        }
    }

    init(current: KeyID, identity: KeyID? = nil, keys: [KeyID: WrappedKey], enabledAt: Int64? = nil, lastModified: Int64? = nil) {
        self.current = current
        self.identity = identity ?? current
        self.keys = keys
        self.enabledAt = enabledAt
        self.lastModified = lastModified
    }

    init(_ record: RawRecord) throws {
        let fields = try WireJSON.fields(record.json)
        guard fields["format"]?.intValue == Self.format else {
            throw EncryptionError.malformed(reason: "the server's keyring is not of a format this Shelf knows")
        }
        guard let current = fields["current"]?.stringValue, case .object(let wrapped)? = fields["keys"] else {
            throw EncryptionError.malformed(reason: "the server's keyring names no current key")
        }
        var keys: [KeyID: WrappedKey] = [:]
        for (name, value) in wrapped {
            guard case .object(let fields) = value else { throw EncryptionError.malformed(reason: "a wrapped key of the keyring is not an object") }
            let key = try WrappedKey(fields: fields)
            guard key.keyID.rawValue == name else { throw EncryptionError.malformed(reason: "the keyring files key \(key.keyID) under \(name)") }
            keys[key.keyID] = key
        }
        let currentID = try KeyID(current)
        guard keys[currentID] != nil else { throw EncryptionError.malformed(reason: "the keyring's current key \(current) is not among its keys") }
        let identity = try fields["identity"]?.stringValue.map { name throws(EncryptionError) in try KeyID(name) } ?? currentID
        guard keys[identity] != nil else { throw EncryptionError.malformed(reason: "the keyring's identity key \(identity) is not among its keys") }
        self.init(
            current: currentID, identity: identity, keys: keys, enabledAt: fields["enabled_at"]?.intValue.map { Int64($0) },
            lastModified: record.lastModified)
    }

    // MARK: Writing

    /// The record's body.
    func data() throws -> Data {
        var wrapped: [String: JSONValue] = [:]
        for (id, key) in keys { wrapped[id.rawValue] = .object(key.fields) }
        var fields: [String: JSONValue] = [
            "format": .number(Double(Self.format)), "current": .string(current.rawValue),
            "identity": .string(identity.rawValue), "keys": .object(wrapped),
        ]
        if let enabledAt { fields["enabled_at"] = .number(Double(enabledAt)) }
        return try WireJSON.data(fields)
    }

    /// Writes the keyring: created when it has no version yet (`If-None-Match: *`),
    /// else replaced if it is still that version (`If-Match`).
    /// - Returns: the keyring as stored, with its new version.
    /// - Throws: `APIError.preconditionFailed` when another device wrote it first.
    func save(_ client: APIClient) async throws -> ServerKeyring {
        let request: KintoRequest = if let lastModified {
            try .update(in: Self.path, id: Self.recordID, data: try data(), ifMatch: Int(lastModified))
        } else {
            try .create(in: Self.path, id: Self.recordID, data: try data())
        }
        let stored = try await client.write(request)
        var saved = self
        saved.lastModified = stored.lastModified
        return saved
    }
}
