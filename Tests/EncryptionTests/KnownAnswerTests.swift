import Domain
@testable import Encryption
import Foundation
import Records
import Testing
import TestSupport

// MARK: - The file

/// The committed file is what Shelf makes now, byte for byte (`KnownAnswerVectors`).
///
/// `SHELF_RECORD_FIXTURES=1` writes the file instead, and fails so the new file is reviewed
/// before it is committed.
@Suite("The known-answer file")
struct KnownAnswerFileTests {
    @Test func theCommittedFileIsWhatShelfMakesNow() throws {
        let made = try KnownAnswerVectors.documentData()
        if ProcessInfo.processInfo.environment["SHELF_RECORD_FIXTURES"] == "1" {
            try made.write(to: KnownAnswerVectors.fileURL)
            Issue.record("recorded Fixtures/encryption/vectors.json; review it and run again without SHELF_RECORD_FIXTURES")
            return
        }
        let committed = try Data(contentsOf: KnownAnswerVectors.fileURL)
        #expect(committed == made, "Shelf's format changed, or the vectors did: SHELF_RECORD_FIXTURES=1 writes them again")
    }
}

// MARK: - Each vector

/// The known-answer vectors another client checks itself against
/// (`Fixtures/encryption/vectors.json`, docs/encryption-format.md): every vector in the
/// committed file holds when Shelf reads its inputs from the file — derivations, wraps,
/// ids, seals, openings, the keyring, refusals.
@Suite("Known-answer vectors of the encryption format")
struct KnownAnswerTests {
    let vectors: [String: JSONValue]
    let keys: [String: DataKey]

    init() throws {
        vectors = try WireJSON.fields(Data(contentsOf: KnownAnswerVectors.fileURL))
        var keys: [String: DataKey] = [:]
        for vector in try Self.array(vectors["data_keys"]) {
            keys[try Self.string(vector["name"])] = try KnownAnswerVectors.dataKey(Self.bytes(vector["key"]))
        }
        self.keys = keys
    }

    // MARK: - Keys

    @Test func thePassphraseBecomesTheKEK() throws {
        let vector = try Self.object(vectors["kek"])
        #expect(Hex.string(Array(try passphraseText().utf8)) == (try Self.string(vector["passphrase_utf8"])))
        #expect(KnownAnswerVectors.secret(try keyEncryptionKey().bytes) == (try Self.bytes(vector["kek"])))
    }

    /// The vectors' passphrase, from the file.
    func passphraseText() throws -> String {
        try Self.string(vectors["kek"]?["passphrase"])
    }

    /// The vectors' KEK, derived from the file's passphrase, salt and cost.
    func keyEncryptionKey() throws -> KeyEncryptionKey {
        let vector = try Self.object(vectors["kek"])
        return try PassphraseKDF.derive(
            from: Passphrase(passphraseText()), salt: KDFSalt(bytes: Self.bytes(vector["salt"])),
            parameters: KDFParameters(opsLimit: UInt64(Self.integer(vector["ops"])), memoryBytes: UInt64(Self.integer(vector["mem"]))))
    }

    @Test func eachDataKeyHasItsID() throws {
        for vector in try Self.array(vectors["data_keys"]) {
            let key = try #require(keys[try Self.string(vector["name"])])
            let mac = try Self.string(vector["id_mac"])
            #expect(key.id.rawValue == (try Self.string(vector["kid"])))
            #expect(String(mac.prefix(KeyID.length)) == key.id.rawValue, "the key id is the first 8 bytes of the MAC")
        }
    }

    @Test func theWrappedKeyOpensToItsKeyAndHasItsDigest() throws {
        let vector = try Self.object(vectors["wrapped_key"])
        let json = try Self.object(vector["json"])
        let wrapped = try WrappedKey(fields: json)
        let kek = try keyEncryptionKey()
        let key = try #require(keys[try Self.string(vector["key"])])
        #expect(try wrapped.unwrap(with: kek).hasSameBytes(as: key))
        #expect(try wrapped.unwrap(passphrase: Passphrase(passphraseText())).hasSameBytes(as: key))
        #expect(wrapped.digest == (try Self.string(vector["digest"])))
        #expect(Hex.string(KnownAnswerVectors.wrapDigestMessage(wrapped)) == (try Self.string(vector["digest_message"])))
        // Wrapped again with the vector's nonce, it is the same JSON.
        let (again, associatedData) = try KnownAnswerVectors.wrap(key, with: kek, nonce: Self.bytes(vector["nonce"]))
        #expect(Hex.string(associatedData) == (try Self.string(vector["associated_data"])))
        #expect(Hex.string(again.ciphertext) == (try Self.string(vector["ciphertext"])))
        #expect(again.fields == json)
    }

    @Test func keyedIDsAreTheVectors() throws {
        let vector = try Self.object(vectors["keyed_ids"])
        let identity = try #require(keys[try Self.string(vector["identity"])])
        let identifier = try KeyedIdentifier(key: identity)
        let subkey = try Self.bytes(vector["subkey"])
        let ids = try Self.array(vector["ids"])
        #expect(ids.count == KnownAnswerVectors.naturalIDs.count)
        for id in ids {
            let (collection, natural) = (try Self.string(id["collection"]), try Self.string(id["natural_id"]))
            let message = AssociatedData.of(["shelf keyed id", collection, natural])
            #expect(Hex.string(message) == (try Self.string(id["message"])))
            #expect(identifier.id(for: natural, in: collection) == (try Self.string(id["id"])), "\(natural)")
            #expect(Hex.string(KnownAnswerVectors.blake2b(16, message, key: subkey)) == (try Self.string(id["id"])))
        }
    }

    // MARK: - Records

    @Test func eachRecordSealsToItsVectorAndOpensToItsOpenedForm() throws {
        let records = try Self.array(vectors["records"])
        #expect(records.map { $0["name"]?.stringValue } == ["live", "deletion", "format 1"])
        let sealer = RecordSealer(keyring: Keyring(current: try #require(keys["B"]), older: [try #require(keys["A"])]), bucket: "default")
        for vector in records {
            let name = try Self.string(vector["name"])
            let collection = try Self.string(vector["collection"])
            let id = try Self.string(vector["id"])
            let key = try #require(keys[try Self.string(vector["key"])])
            let format = try Self.integer(vector["format"])
            let sequence = vector["seq"].flatMap(\.intValue).map(Int64.init)
            let deletion = vector["deletion"]?.boolValue == true
            let serverText = try Self.string(vector["server_record"])
            let input = KnownAnswerVectors.RecordInput(
                name: name, format: format, collection: collection, id: id, key: try Self.string(vector["key"]), sequence: sequence,
                deletion: deletion, nonce: try Self.bytes(vector["nonce"]), stamp: Int64(try Self.integer(vector["last_modified"])),
                fields: try Self.object(vector["fields"]))

            // The parts, as the document builds them.
            let content = Array(try Self.string(vector["content"]).utf8)
            let padded = try RecordSealer.padded(content)
            #expect(Hex.string(padded) == (try Self.string(vector["padded"])), "\(name)")
            let associatedData = RecordSealer.associatedData(
                RecordAddress(bucket: "default", collection: collection, id: id), format: format, keyID: key.id, sequence: sequence, deletion: deletion)
            #expect(Hex.string(associatedData) == (try Self.string(vector["associated_data"])), "\(name)")
            let sealed = try XChaCha20Poly1305.seal(padded, associatedData: associatedData, key: key.bytes, nonce: Self.bytes(vector["nonce"]))
            #expect(Hex.string(sealed.ciphertext) == (try Self.string(vector["ciphertext"])), "\(name)")

            // Shelf's sealer, given the vector's fields and nonce, writes the server's record.
            #expect(try KnownAnswerVectors.sealedRecord(input, [keys["A"], keys["B"], keys["C"]].compactMap { $0 }).text == serverText, "\(name)")

            // Opened as the sync opens it, and as fields.
            let expected = try Self.object(vector["opened"])
            let opened = try sealer.open(RawRecord(scanning: Data(serverText.utf8)), in: collection)
            #expect(try WireJSON.fields(opened.record.json) == expected, "\(name)")
            #expect(opened.isDeletion == deletion && opened.sequence == sequence && opened.keyID == key.id, "\(name)")
            var fields = try sealer.open(WireJSON.fields(Data(serverText.utf8)), in: collection)
            if deletion {
                #expect(fields.removeValue(forKey: RecordSealer.deletionField) == .bool(true), "\(name)")
                fields["deleted"] = .bool(true)
            }
            #expect(fields == expected, "\(name)")
        }
    }

    @Test func eachRefusedRecordIsRefusedForItsReason() throws {
        let refused = try Self.array(vectors["refused"])
        #expect(refused.count >= 20)
        let sealer = RecordSealer(keyring: Keyring(current: try #require(keys["B"]), older: [try #require(keys["A"])]), bucket: "default")
        for vector in refused {
            let name = try Self.string(vector["name"])
            let record = Data(try Self.string(vector["record"]).utf8)
            let kind: String
            do {
                _ = try sealer.open(RawRecord(scanning: record), in: Self.string(vector["collection"]))
                kind = "opened"
            } catch is JSONScanError {
                kind = "not json"
            } catch let error as EncryptionError {
                kind = Self.kind(of: error)
            }
            #expect(kind == (try Self.string(vector["kind"])), "\(name)")
        }
    }

    // MARK: - Keyring

    @Test func theKeyringIsMadeVerifiedAndOpened() throws {
        let vector = try Self.object(vectors["keyring"])
        let record = try KeyringRecord(fields: Self.object(vector["record"]))
        let (a, b) = (try #require(keys["A"]), try #require(keys["B"]))
        #expect(Hex.string(record.manifest.authenticatedBytes) == (try Self.string(vector["manifest_bytes"])))
        #expect(record.manifest.digest == (try Self.string(vector["digest"])))
        let macs = try Self.object(vector["macs"])
        let subkeys = try Self.object(vector["mac_subkeys"])
        for key in [a, b] {
            let mac = try Self.bytes(macs[key.id.rawValue])
            #expect(try record.manifest.authenticator(under: key) == mac)
            #expect(record.authenticators[key.id] == mac)
            let subkey = try Self.bytes(subkeys[key.id.rawValue])
            #expect(KnownAnswerVectors.blake2b(32, record.manifest.authenticatedBytes, key: subkey) == mac)
        }
        #expect(try record.verify(with: [a, b]) == 2)
        #expect(record.problems.isEmpty)
        let (opened, problems) = try record.open(passphrase: Passphrase(passphraseText()))
        #expect(problems.isEmpty)
        #expect(opened.current.hasSameBytes(as: b) && opened.older.count == 1 && opened.older[0].hasSameBytes(as: a))
        #expect(record.manifest.current == b.id && record.manifest.identity == a.id && record.manifest.version == 3)
        #expect(record.manifest.plaintextClosed && record.manifest.keys[a.id]?.state == .retired)

        // Made again from its wrapped keys, it is the same record.
        let again = try KeyringRecord.make(
            version: record.manifest.version, current: b.id, identity: a.id, plaintextClosed: true, wrapped: record.wrapped,
            states: record.manifest.keys.mapValues(\.state), keys: [a, b])
        #expect(JSONValue.object(again.fields) == vector["record"])
    }

    // MARK: - Reading the file

    static func kind(of error: EncryptionError) -> String {
        switch error {
        case .malformed: "malformed"
        case .tampered: "tampered"
        case .unknownKey: "unknown key"
        case .unsupportedFormat: "unsupported"
        default: "\(error)"
        }
    }

    struct MissingMember: Error {}

    static func object(_ value: JSONValue?) throws -> [String: JSONValue] {
        guard let object = value?.objectValue else { throw MissingMember() }
        return object
    }

    static func array(_ value: JSONValue?) throws -> [JSONValue] {
        guard case .array(let array)? = value else { throw MissingMember() }
        return array
    }

    static func string(_ value: JSONValue?) throws -> String {
        guard let string = value?.stringValue else { throw MissingMember() }
        return string
    }

    static func integer(_ value: JSONValue?) throws -> Int {
        guard let integer = value?.intValue else { throw MissingMember() }
        return integer
    }

    static func bytes(_ value: JSONValue?) throws -> [UInt8] {
        let text = Array(try string(value).utf8)
        guard text.count % 2 == 0 else { throw MissingMember() }
        return try stride(from: 0, to: text.count, by: 2).map { index in
            guard let high = Hex.digitValue(text[index]), let low = Hex.digitValue(text[index + 1]) else { throw MissingMember() }
            return high << 4 | low
        }
    }
}
