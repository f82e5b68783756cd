import CSodium
import Domain
@testable import Encryption
import Foundation
import Records
import TestSupport

// MARK: - KnownAnswerVectors

/// The known-answer vectors of docs/encryption-format.md, made by Shelf's own code from
/// fixed inputs — a passphrase, a salt, data keys and nonces — so another client can check
/// itself byte for byte. `Fixtures/encryption/vectors.json` is exactly `document()`.
///
/// Shelf draws every nonce at random; the vectors use the `nonce:` paths that exist for them
/// alone (`RecordSealer.seal(_:in:sequence:nonce:deletion:)`, `XChaCha20Poly1305.seal`). What
/// Shelf keeps private (the subkeys behind keyed ids and keyring MACs, the wrapped key's
/// authenticated data) is computed here from the document and proved by Shelf's outputs:
/// the keyed ids and MACs it makes are BLAKE2b under those subkeys, and the wrapped key opens.
enum KnownAnswerVectors {
    // MARK: - Inputs

    /// Not ASCII on purpose: a passphrase is its UTF-8 bytes, as given.
    static let passphrase = "correct horse battery staple, à la café"
    static let salt = counting(from: 0x00, count: 16)
    /// libsodium's minimum cost: a vector, not a recommendation.
    static let opsLimit: UInt64 = 1
    static let memoryBytes: UInt64 = 8192
    /// The account's first key: the identity key, retired in the keyring vector.
    static let keyA = counting(from: 0x10, count: 32)
    /// The current key: every record vector but format 1 is sealed under it.
    static let keyB = counting(from: 0x30, count: 32)
    /// A key no keyring lists: a record sealed under it cannot be opened.
    static let keyC = counting(from: 0x50, count: 32)
    static let bucket = "default"

    static func nonce(_ first: UInt8) -> [UInt8] { counting(from: first, count: 24) }

    static let fileURL = FixtureFiles.url("encryption/vectors.json")

    // MARK: - The document

    /// The file's bytes: pretty, keys sorted, one newline at the end.
    static func documentData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(try document()) + Data("\n".utf8)
    }

    static func document() throws -> JSONValue {
        let kek = try keyEncryptionKey()
        let keys = try [keyA, keyB, keyC].map(dataKey)
        return .object([
            "about": """
                Known-answer vectors of Shelf's encryption format 2 (docs/encryption-format.md), written by Shelf's own code \
                (Tests/EncryptionTests/KnownAnswerVectors.swift). Bytes are lowercase hex unless a member says otherwise; \
                texts are given as the exact characters.
                """,
            "kek": .object([
                "passphrase": .string(passphrase), "passphrase_utf8": .string(hex(Array(passphrase.utf8))),
                "salt": .string(hex(salt)), "ops": number(opsLimit), "mem": number(memoryBytes),
                "kek": .string(hex(secret(kek.bytes))),
            ]),
            "data_keys": .array(zip(["A", "B", "C"], keys).map { name, key in
                .object([
                    "name": .string(name), "key": .string(hex(secret(key.bytes))),
                    "id_mac": .string(hex(blake2b(16, Array("shelf data key id v1".utf8), key: secret(key.bytes)))),
                    "kid": .string(key.id.rawValue),
                ])
            }),
            "wrapped_key": try wrappedKeyVector(keys[0], kek: kek),
            "keyed_ids": try keyedIDVectors(identity: keys[0]),
            "records": .array(try recordVectors(keys)),
            "keyring": try keyringVector(keys, kek: kek),
            "refused": .array(try refusedVectors(keys)),
        ])
    }

    // MARK: - Wrapped key

    static func wrappedKeyVector(_ key: DataKey, kek: KeyEncryptionKey) throws -> JSONValue {
        let nonce = nonce(0xa0)
        let (wrapped, associatedData) = try wrap(key, with: kek, nonce: nonce)
        return .object([
            "key": "A", "nonce": .string(hex(nonce)), "associated_data": .string(hex(associatedData)),
            "ciphertext": .string(hex(wrapped.ciphertext)), "json": .object(wrapped.fields),
            "digest_message": .string(hex(wrapDigestMessage(wrapped))), "digest": .string(wrapped.digest),
        ])
    }

    /// `AD_wrap = lp("shelf wrapped key", "1", kid, "argon2id13", ops, mem)`, sealed with a
    /// given nonce; refused unless Shelf's own `unwrap` opens it to the same key.
    static func wrap(_ key: DataKey, with kek: KeyEncryptionKey, nonce: [UInt8]) throws -> (WrappedKey, [UInt8]) {
        let associatedData = AssociatedData.of([
            "shelf wrapped key", "1", key.id.rawValue, "argon2id13", String(kek.parameters.opsLimit), String(kek.parameters.memoryBytes),
        ])
        let sealed = try XChaCha20Poly1305.seal(key.bytes, associatedData: associatedData, key: kek.bytes, nonce: nonce)
        let wrapped = WrappedKey(keyID: key.id, salt: kek.salt, parameters: kek.parameters, nonce: sealed.nonce, ciphertext: sealed.ciphertext)
        guard try wrapped.unwrap(with: kek).hasSameBytes(as: key) else { throw VectorError("the wrapped key opens to another key") }
        return (wrapped, associatedData)
    }

    static func wrapDigestMessage(_ wrapped: WrappedKey) -> [UInt8] {
        AssociatedData.of([
            "shelf wrapped key", "1", wrapped.keyID.rawValue, "argon2id13", String(wrapped.parameters.opsLimit),
            String(wrapped.parameters.memoryBytes), Data(wrapped.salt.bytes).base64EncodedString(),
            Data(wrapped.nonce).base64EncodedString(), Data(wrapped.ciphertext).base64EncodedString(),
        ])
    }

    // MARK: - Keyed ids

    static let naturalIDs: [(collection: String, id: String)] = [
        ("books", "gr-2767052"), ("notes", "gr-2767052-review"), ("books", "cal-42"),
    ]

    static func keyedIDVectors(identity: DataKey) throws -> JSONValue {
        let identifier = try KeyedIdentifier(key: identity)
        let subkey = subkey(of: secret(identity.bytes), context: "shelf_id")
        let ids: [JSONValue] = try naturalIDs.map { natural in
            let message = AssociatedData.of(["shelf keyed id", natural.collection, natural.id])
            let id = identifier.id(for: natural.id, in: natural.collection)
            guard hex(blake2b(16, message, key: subkey)) == id else { throw VectorError("a keyed id is not BLAKE2b under the shelf_id subkey") }
            return .object([
                "collection": .string(natural.collection), "natural_id": .string(natural.id),
                "message": .string(hex(message)), "id": .string(id),
            ])
        }
        return .object(["identity": "A", "subkey": .string(hex(subkey)), "ids": .array(ids)])
    }

    // MARK: - Records

    static let recordID = "b7e1c2d3-0a4f-4e6d-8c5b-2f9a1e3d7c60"
    static let legacyID = "reading-list"
    static let lineage = ["5b2f0a1c-6d3e-4f87-9a10-c2b3d4e5f601", "0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b"]
    static let deletionRevision = "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910"

    /// What each record vector seals: its fields as a device holds them (server members and a
    /// stale `_shelf_seq` included, to show what is left out), under which key, as what.
    struct RecordInput {
        let name: String
        let format: Int
        let collection: String
        let id: String
        let key: String
        let sequence: Int64?
        let deletion: Bool
        let nonce: [UInt8]
        let stamp: Int64
        let fields: [String: JSONValue]
    }

    static var recordInputs: [RecordInput] {
        [
            RecordInput(
                name: "live", format: 2, collection: "books", id: recordID, key: "B", sequence: 7, deletion: false,
                nonce: nonce(0xc0), stamp: 1_700_000_000_000,
                fields: [
                    "id": .string(recordID), "last_modified": 1_699_999_999_000, "_shelf_seq": 6,
                    "title": "Dune — “the first book”", "author_name": "Frank Herbert", "finished": true,
                    "_shelf_revs": .array(lineage.map(JSONValue.string)),
                ]),
            RecordInput(
                name: "deletion", format: 2, collection: "books", id: recordID, key: "B", sequence: 8, deletion: true,
                nonce: nonce(0xd0), stamp: 1_700_000_000_500,
                fields: ["id": .string(recordID), "_shelf_revs": .array((lineage + [deletionRevision]).map(JSONValue.string))]),
            RecordInput(
                name: "format 1", format: 1, collection: "notes", id: legacyID, key: "A", sequence: nil, deletion: false,
                nonce: nonce(0xe0), stamp: 1_690_000_000_000,
                fields: [
                    "id": .string(legacyID), "last_modified": 1_690_000_000_000, "title": "Reading list",
                    "body": "Dune Messiah\nChildren of Dune", "book_id": nil, "_shelf_revs": ["1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"],
                ]),
        ]
    }

    static func recordVectors(_ keys: [DataKey]) throws -> [JSONValue] {
        try recordInputs.map { input in
            let sealed = try sealedRecord(input, keys)
            let key = try key(named: input.key, keys)
            let address = RecordAddress(bucket: bucket, collection: input.collection, id: input.id)
            let envelope = try SealedRecord(fields: sealed.fields)
            let associatedData = RecordSealer.associatedData(
                address, format: input.format, keyID: key.id, sequence: input.sequence, deletion: input.deletion)
            let padded = try openPadded(envelope, key: key, associatedData: associatedData)
            let content = try unpadded(padded)
            var vector: [String: JSONValue] = [
                "name": .string(input.name), "format": .number(Double(input.format)), "bucket": .string(bucket),
                "collection": .string(input.collection), "id": .string(input.id), "key": .string(input.key),
                "deletion": .bool(input.deletion), "nonce": .string(hex(input.nonce)), "fields": .object(input.fields),
                "content": .string(String(decoding: content, as: UTF8.self)), "padded": .string(hex(padded)),
                "associated_data": .string(hex(associatedData)), "ciphertext": .string(hex(envelope.ciphertext)),
                "last_modified": .number(Double(input.stamp)), "server_record": .string(sealed.text),
                "opened": .object(try opened(sealed.text, in: input.collection, keys)),
            ]
            if let sequence = input.sequence { vector["seq"] = .number(Double(sequence)) }
            return .object(vector)
        }
    }

    /// The record as the server keeps it, sealed by Shelf: its fields and their text.
    static func sealedRecord(_ input: RecordInput, _ keys: [DataKey]) throws -> (fields: [String: JSONValue], text: String) {
        let key = try key(named: input.key, keys)
        var fields: [String: JSONValue]
        if input.format == SealedRecord.formatVersion, let sequence = input.sequence {
            let sealer = RecordSealer(keyring: Keyring(current: key), bucket: bucket)
            fields = try sealer.seal(input.fields, in: input.collection, sequence: sequence, nonce: input.nonce, deletion: input.deletion)
        } else {
            // NB: Shelf writes format 1 no more; its parts still make one.
            var content = input.fields
            ServerOwnedFields.removeAll(from: &content)
            let padded = try RecordSealer.padded(Array(WireJSON.data(content)))
            let address = RecordAddress(bucket: bucket, collection: input.collection, id: input.id)
            let associatedData = RecordSealer.associatedData(address, format: 1, keyID: key.id, sequence: nil, deletion: false)
            let sealed = try XChaCha20Poly1305.seal(padded, associatedData: associatedData, key: key.bytes, nonce: input.nonce)
            fields = SealedRecord(
                id: input.id, lastModified: nil, format: 1, keyID: key.id, sequence: nil, nonce: sealed.nonce, ciphertext: sealed.ciphertext
            ).fields
        }
        fields["last_modified"] = .number(Double(input.stamp))
        return (fields, String(decoding: try WireJSON.data(fields), as: UTF8.self))
    }

    /// What Shelf's sync keeps of a record from the server: `RecordSealer.open` of the
    /// record as scanned from its bytes (keys A and B held).
    static func opened(_ text: String, in collection: String, _ keys: [DataKey]) throws -> [String: JSONValue] {
        let sealer = RecordSealer(keyring: Keyring(current: keys[1], older: [keys[0]]), bucket: bucket)
        let record = try sealer.open(RawRecord(scanning: Data(text.utf8)), in: collection).record
        return try WireJSON.fields(record.json)
    }

    // MARK: - Keyring

    static func keyringVector(_ keys: [DataKey], kek: KeyEncryptionKey) throws -> JSONValue {
        let (a, b) = (keys[0], keys[1])
        let nonces = [a.id: nonce(0xa0), b.id: nonce(0xb0)]
        let wrapped = [a.id: try wrap(a, with: kek, nonce: nonce(0xa0)).0, b.id: try wrap(b, with: kek, nonce: nonce(0xb0)).0]
        let record = try KeyringRecord.make(
            version: 3, current: b.id, identity: a.id, plaintextClosed: true, wrapped: wrapped,
            states: [a.id: .retired, b.id: .current], keys: [a, b])
        let message = record.manifest.authenticatedBytes
        var subkeys: [String: JSONValue] = [:]
        var macs: [String: JSONValue] = [:]
        for key in [a, b] {
            let subkey = subkey(of: secret(key.bytes), context: "shelfkrg")
            guard let mac = record.authenticators[key.id], blake2b(32, message, key: subkey) == mac else {
                throw VectorError("a keyring MAC is not BLAKE2b under the shelfkrg subkey")
            }
            subkeys[key.id.rawValue] = .string(hex(subkey))
            macs[key.id.rawValue] = .string(hex(mac))
        }
        guard hex(blake2b(32, message)) == record.manifest.digest else { throw VectorError("the manifest digest is not BLAKE2b of its bytes") }
        return .object([
            "keys": ["A", "B"],
            "wrap_nonces": .object(Dictionary(uniqueKeysWithValues: nonces.map { ($0.key.rawValue, JSONValue.string(hex($0.value))) })),
            "record": .object(record.fields), "manifest_bytes": .string(hex(message)),
            "mac_subkeys": .object(subkeys), "macs": .object(macs), "digest": .string(record.manifest.digest),
        ])
    }

    // MARK: - Refused records

    /// One record a reader must refuse, and how Shelf sorts the refusal.
    struct Refusal {
        let name: String
        let collection: String
        let record: String
        /// `not json`, `malformed`, `unsupported`, `unknown key` or `tampered`.
        let kind: String
    }

    static func refusals(_ keys: [DataKey]) throws -> [Refusal] {
        let live = try sealedRecord(recordInputs[0], keys)
        let deletion = try sealedRecord(recordInputs[1], keys)
        let text = live.text
        guard case .string(let kid)? = live.fields["shelf_enc"]?["kid"],
              case .string(let nonceText)? = live.fields["shelf_enc"]?["n"],
              case .string(let ciphertextText)? = live.fields["shelf_enc"]?["c"]
        else { throw VectorError("the live vector has no envelope") }
        func edited(_ old: String, _ new: String, in source: String = text) throws -> String {
            guard source.contains(old) else { throw VectorError("\(old) is not in the record") }
            return source.replacingOccurrences(of: old, with: new)
        }
        let idMember = "\"id\":\"\(recordID)\""
        var altered = Array(ciphertextText)
        altered[10] = altered[10] == "A" ? "B" : "A"
        var refusals = [
            Refusal(name: "the record names a member twice", collection: "books",
                    record: try edited(idMember, idMember + ",\"id\":\"another-record\""), kind: "not json"),
            Refusal(name: "the envelope names a member twice", collection: "books", record: try edited("\"seq\":7", "\"seq\":7,\"seq\":8"), kind: "not json"),
            Refusal(name: "a member in the clear beside the envelope", collection: "books",
                    record: try edited("{\(idMember)", "{\"title\":\"forged\",\(idMember)"), kind: "malformed"),
            Refusal(name: "a tombstone mark beside the envelope", collection: "books",
                    record: try edited("{\(idMember)", "{\"deleted\":true,\(idMember)"), kind: "malformed"),
            Refusal(name: "an envelope member Shelf does not write", collection: "books", record: try edited("\"v\":2", "\"v\":2,\"x\":1"), kind: "malformed"),
            Refusal(name: "del is false", collection: "books", record: try edited("\"seq\":7", "\"del\":false,\"seq\":7"), kind: "malformed"),
            Refusal(name: "seq is missing", collection: "books", record: try edited("\"seq\":7,", ""), kind: "malformed"),
            Refusal(name: "seq is 0", collection: "books", record: try edited("\"seq\":7", "\"seq\":0"), kind: "malformed"),
            Refusal(name: "seq is 2^53", collection: "books", record: try edited("\"seq\":7", "\"seq\":9007199254740992"), kind: "malformed"),
            Refusal(name: "seq is not written as an integer", collection: "books", record: try edited("\"seq\":7", "\"seq\":7.0"), kind: "malformed"),
            Refusal(name: "a format Shelf does not know", collection: "books", record: try edited("\"v\":2", "\"v\":3"), kind: "unsupported"),
            Refusal(name: "a format 1 envelope with seq", collection: "books", record: try edited("\"v\":2", "\"v\":1"), kind: "malformed"),
            Refusal(name: "an id Kinto would refuse", collection: "books",
                    record: try edited(idMember, "\"id\":\"book.1\""), kind: "malformed"),
            Refusal(name: "kid is 15 hex digits", collection: "books", record: try edited(kid, String(kid.dropLast())), kind: "malformed"),
            Refusal(name: "n is 23 bytes", collection: "books",
                    record: try edited(nonceText, Data(nonce(0xc0).prefix(23)).base64EncodedString()), kind: "malformed"),
            Refusal(name: "c is shorter than a tag and one byte", collection: "books",
                    record: try edited(ciphertextText, Data(counting(from: 0, count: 16)).base64EncodedString()), kind: "tampered"),
            Refusal(name: "c altered", collection: "books", record: try edited(ciphertextText, String(altered)), kind: "tampered"),
            Refusal(name: "moved to another record", collection: "books",
                    record: try edited(idMember, "\"id\":\"another-record\""), kind: "tampered"),
            Refusal(name: "moved to another collection", collection: "notes", record: text, kind: "tampered"),
            Refusal(name: "renumbered", collection: "books", record: try edited("\"seq\":7", "\"seq\":8"), kind: "tampered"),
            Refusal(name: "a live version marked a deletion", collection: "books", record: try edited("\"kid\"", "\"del\":true,\"kid\""), kind: "tampered"),
            Refusal(name: "a deletion unmarked", collection: "books", record: try edited("\"del\":true,", "", in: deletion.text), kind: "tampered"),
        ]
        let stranger = try sealedRecord(
            RecordInput(name: "", format: 2, collection: "books", id: recordID, key: "C", sequence: 7, deletion: false,
                        nonce: nonce(0xc0), stamp: 1_700_000_000_000, fields: recordInputs[0].fields), keys)
        refusals.append(Refusal(name: "sealed under a key the keyring does not list", collection: "books", record: stranger.text, kind: "unknown key"))
        let contents: [(String, String, Bool)] = [
            ("the content holds id", #"{"id":"another-record","title":"Dune"}"#, false),
            ("the content holds _shelf_seq", #"{"_shelf_seq":99,"title":"Dune"}"#, false),
            ("the content holds _shelf_deleted", #"{"_shelf_deleted":true,"title":"Dune"}"#, false),
            ("the content names a member twice", #"{"title":"Dune","title":"Forged"}"#, false),
            ("the content is not an object", #"["Dune"]"#, false),
            ("the lineage is not an array", #"{"_shelf_revs":"5b2f0a1c","title":"Dune"}"#, false),
            ("a deletion whose content holds more than its lineage", #"{"_shelf_revs":[],"title":"Dune"}"#, true),
        ]
        for (index, (name, content, isDeletion)) in contents.enumerated() {
            let record = try sealedContent(Array(content.utf8), deletion: isDeletion, nonce: nonce(0xf0 &+ UInt8(index)), keys)
            refusals.append(Refusal(name: name, collection: "books", record: record, kind: "malformed"))
        }
        let unpaddable = Array(#"{"title":"Dune"}"#.utf8) + [UInt8](repeating: 0, count: 48)
        let unpadded = try sealedContent(unpaddable, deletion: false, padding: false, nonce: nonce(0xff), keys)
        refusals.append(Refusal(name: "the plaintext is not padded", collection: "books", record: unpadded, kind: "malformed"))
        return refusals
    }

    static func refusedVectors(_ keys: [DataKey]) throws -> [JSONValue] {
        try refusals(keys).map { refusal in
            .object(["name": .string(refusal.name), "collection": .string(refusal.collection), "record": .string(refusal.record), "kind": .string(refusal.kind)])
        }
    }

    /// A record whose seal verifies under key B but whose content Shelf never writes.
    static func sealedContent(_ content: [UInt8], deletion: Bool, padding: Bool = true, nonce: [UInt8], _ keys: [DataKey]) throws -> String {
        let key = keys[1]
        let sequence: Int64 = 7
        let plaintext = padding ? try RecordSealer.padded(content) : content
        let address = RecordAddress(bucket: bucket, collection: "books", id: recordID)
        let associatedData = RecordSealer.associatedData(address, format: 2, keyID: key.id, sequence: sequence, deletion: deletion)
        let sealed = try XChaCha20Poly1305.seal(plaintext, associatedData: associatedData, key: key.bytes, nonce: nonce)
        var fields = SealedRecord(
            id: recordID, lastModified: .number(1_700_000_000_000), format: 2, keyID: key.id, sequence: sequence, isDeletion: deletion,
            nonce: sealed.nonce, ciphertext: sealed.ciphertext
        ).fields
        fields["last_modified"] = .number(1_700_000_000_000)
        return String(decoding: try WireJSON.data(fields), as: UTF8.self)
    }

    // MARK: - Parts

    struct VectorError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func counting(from first: UInt8, count: Int) -> [UInt8] {
        (0..<count).map { first &+ UInt8($0) }
    }

    static func keyEncryptionKey() throws -> KeyEncryptionKey {
        try PassphraseKDF.derive(
            from: Passphrase(passphrase), salt: KDFSalt(bytes: salt),
            parameters: KDFParameters(opsLimit: opsLimit, memoryBytes: memoryBytes))
    }

    static func dataKey(_ bytes: [UInt8]) throws -> DataKey {
        try DataKey(bytes: SecretBytes.make(count: bytes.count) { start, count in start.update(from: bytes, count: count) })
    }

    static func key(named name: String, _ keys: [DataKey]) throws -> DataKey {
        guard let index = ["A", "B", "C"].firstIndex(of: name) else { throw VectorError("no key \(name)") }
        return keys[index]
    }

    static func secret(_ bytes: SecretBytes) -> [UInt8] {
        bytes.withUnsafeBytes { Array($0) }
    }

    static func hex(_ bytes: some Collection<UInt8>) -> String {
        Hex.string(bytes)
    }

    static func number(_ value: UInt64) -> JSONValue {
        .number(Double(value))
    }

    /// libsodium's `crypto_generichash`, keyed when `key` is not empty.
    static func blake2b(_ length: Int, _ message: [UInt8], key: [UInt8] = []) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: length)
        _ = crypto_generichash(&digest, length, message, UInt64(message.count), key.isEmpty ? nil : key, key.count)
        return digest
    }

    /// `crypto_kdf_derive_from_key(32, 1, context, key)`.
    static func subkey(of key: [UInt8], context: String) -> [UInt8] {
        var subkey = [UInt8](repeating: 0, count: 32)
        let context = Array(context.utf8.map { CChar(bitPattern: $0) })
        _ = crypto_kdf_derive_from_key(&subkey, subkey.count, 1, context, key)
        return subkey
    }

    /// The padded plaintext of an envelope, opened with `key`.
    static func openPadded(_ sealed: SealedRecord, key: DataKey, associatedData: [UInt8]) throws -> [UInt8] {
        guard let length = XChaCha20Poly1305.plaintextLength(ofCiphertext: sealed.ciphertext.count), length > 0 else {
            throw VectorError("a ciphertext too short")
        }
        var padded = [UInt8](repeating: 0, count: length)
        let opened = padded.withUnsafeMutableBufferPointer { output in
            // NB: `baseAddress!` is safe: the buffer holds `length` > 0 bytes.
            XChaCha20Poly1305.open(sealed.ciphertext, nonce: sealed.nonce, associatedData: associatedData, key: key.bytes,
                                   into: output.baseAddress!, count: length)
        }
        guard opened else { throw VectorError("a vector does not open under its own authenticated data") }
        return padded
    }

    static func unpadded(_ padded: [UInt8]) throws -> [UInt8] {
        var length = 0
        guard sodium_unpad(&length, padded, padded.count, RecordSealer.paddingBlock) == 0 else { throw VectorError("a vector does not unpad") }
        return Array(padded.prefix(length))
    }
}
