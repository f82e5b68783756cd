import Domain
import Encryption
import Foundation
import Records
import Services

// MARK: - ServerKeyring

/// The account's keyring as one record on the server:
/// `/buckets/default/collections/shelf-keys/records/keyring`.
///
/// Format 2 (`KeyringRecord`): the wrapped data keys and a manifest authenticated under
/// them — which key is current, each key's state, the identity key, whether the plaintext
/// period is closed, a version that only grows. Format 1 (`LegacyKeyring`), written before
/// the manifest, is still read, so an account sealed then can be upgraded
/// (`SyncRun.upgradeKeyring`). One record, written with `If-None-Match: *` the first time
/// and `If-Match` after, so two devices turning encryption on at once cannot both win, and
/// a rotation never loses another device's.
struct ServerKeyring {
    static let recordID = "keyring"
    /// NB: the force try is safe: both names are literals of Kinto's id alphabet.
    static let path = try! KintoCollectionPath(bucket: KintoCollectionPath.userBucket, collection: "shelf-keys")

    enum Content {
        case authenticated(KeyringRecord)
        case legacy(LegacyKeyring)
    }

    var content: Content
    /// The record's version, for `If-Match`.
    var lastModified: Int64?

    /// The authenticated keyring, when it is one.
    var record: KeyringRecord? {
        if case .authenticated(let record) = content { return record }
        return nil
    }

    /// The key new records are sealed with, as the keyring names it.
    var currentKeyID: KeyID {
        switch content {
        case .authenticated(let record): record.manifest.current
        case .legacy(let legacy): legacy.current
        }
    }

    /// The key imported records' ids are keyed with.
    var identityKeyID: KeyID {
        switch content {
        case .authenticated(let record): record.manifest.identity
        case .legacy(let legacy): legacy.identity
        }
    }

    // MARK: Reading

    /// The keyring on the server, nil when the account is not encrypted.
    /// - Throws: `EncryptionError.malformed` or `.unsupportedFormat` for a keyring Shelf
    ///   did not write.
    static func fetch(_ client: APIClient) async throws -> ServerKeyring? {
        do {
            let record = try await KintoCollectionService(client: client, path: path).record(id: recordID)
            return try ServerKeyring(record)
        } catch APIError.notFound {
            return nil
        }
    }

    init(_ record: KeyringRecord, lastModified: Int64? = nil) {
        content = .authenticated(record)
        self.lastModified = lastModified
    }

    init(_ record: RawRecord) throws {
        let fields = try WireJSON.fields(record.json)
        switch fields["format"]?.intValue {
        case KeyringRecord.formatVersion?:
            content = .authenticated(try KeyringRecord(fields: fields))
        case LegacyKeyring.format?:
            content = .legacy(try LegacyKeyring(fields: fields))
        case let format?:
            throw EncryptionError.unsupportedFormat(version: format)
        case nil:
            throw EncryptionError.malformed(reason: "the server's keyring names no format")
        }
        lastModified = record.lastModified
    }

    // MARK: Writing

    /// The record's body.
    func data() throws -> Data {
        switch content {
        case .authenticated(let record): try WireJSON.data(record.fields)
        case .legacy(let legacy): try WireJSON.data(legacy.fields)
        }
    }

    /// Writes the keyring: created when it has no version yet (`If-None-Match: *`),
    /// else replaced if it is still that version (`If-Match`).
    /// - Returns: the keyring as stored, with its new version.
    /// - Throws: `APIError.preconditionFailed` when another device wrote it first.
    func save(_ client: APIClient) async throws -> ServerKeyring {
        let stored = try await Self.write(try data(), over: lastModified, client)
        var saved = self
        saved.lastModified = stored
        return saved
    }

    /// Writes a keyring body over the version stamped `lastModified` (nil: create).
    /// - Returns: the new version's stamp.
    static func write(_ body: Data, over lastModified: Int64?, _ client: APIClient) async throws -> Int64 {
        let request: KintoRequest = if let lastModified {
            try .update(in: path, id: recordID, data: body, ifMatch: Int(lastModified))
        } else {
            try .create(in: path, id: recordID, data: body)
        }
        return try await client.write(request).lastModified
    }
}

// MARK: - LegacyKeyring

/// A format 1 keyring: wrapped keys with `current`, `identity` and `enabled_at` in the
/// clear, nothing authenticating them as a whole. Read so that an account sealed before
/// format 2 can be joined and upgraded; never written any more.
struct LegacyKeyring {
    static let format = 1

    var current: KeyID
    var identity: KeyID
    var keys: [KeyID: WrappedKey]
    var enabledAt: Int64?

    init(fields: [String: JSONValue]) throws {
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
        self.current = currentID
        self.identity = identity
        self.keys = keys
        self.enabledAt = fields["enabled_at"]?.intValue.map { Int64($0) }
    }

    var fields: [String: JSONValue] {
        var wrapped: [String: JSONValue] = [:]
        for (id, key) in keys { wrapped[id.rawValue] = .object(key.fields) }
        var fields: [String: JSONValue] = [
            "format": .number(Double(Self.format)), "current": .string(current.rawValue),
            "identity": .string(identity.rawValue), "keys": .object(wrapped),
        ]
        if let enabledAt { fields["enabled_at"] = .number(Double(enabledAt)) }
        return fields
    }

    /// Every key, the current one first, opened with one derivation per salt.
    func open(passphrase: Passphrase) throws -> Keyring {
        guard let currentKey = keys[current] else { throw EncryptionError.malformed(reason: "the keyring has no current key") }
        let kek = try PassphraseKDF.derive(from: passphrase, salt: currentKey.salt, parameters: currentKey.parameters)
        let opened = try currentKey.unwrap(with: kek)
        var older: [DataKey] = []
        for (id, wrapped) in keys where id != current {
            older.append(wrapped.opens(with: kek) ? try wrapped.unwrap(with: kek) : try wrapped.unwrap(passphrase: passphrase))
        }
        return Keyring(current: opened, older: older)
    }
}
