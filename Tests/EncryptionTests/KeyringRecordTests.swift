import Domain
import Foundation
@testable import Encryption
import Records
import Testing

/// The keyring the server keeps: wrapped keys, and a manifest authenticated under them,
/// so that what decides — the current key, the key set, the identity key, the end of the
/// plaintext period, the version — cannot be changed by whoever runs the server.
@Suite("The authenticated keyring")
struct KeyringRecordTests {
    let passphrase: Passphrase
    let cheap: KDFParameters
    let first: DataKey
    let record: KeyringRecord

    init() throws {
        passphrase = try TestKeys.passphrase()
        cheap = try TestKeys.cheapParameters()
        first = try DataKey.generate()
        let wrapped = try WrappedKey.wrap(first, passphrase: passphrase, parameters: cheap)
        record = try KeyringRecord.make(
            version: 1, current: first.id, identity: first.id, plaintextClosed: false, wrapped: [first.id: wrapped],
            states: [first.id: .current], keys: [first])
    }

    /// The record as the server sends it back: its JSON.
    private func throughTheServer(_ record: KeyringRecord) throws -> KeyringRecord {
        try KeyringRecord(fields: WireJSON.fields(WireJSON.data(record.fields)))
    }

    /// `record` with its manifest's JSON changed by `change`, as the server's operator would.
    private func edited(_ record: KeyringRecord, _ change: (inout [String: JSONValue]) -> Void) throws -> KeyringRecord {
        var fields = record.fields
        var manifest = try #require(fields["manifest"]?.objectValue)
        change(&manifest)
        fields["manifest"] = .object(manifest)
        return try KeyringRecord(fields: WireJSON.fields(WireJSON.data(fields)))
    }

    /// The record rotated to a new key, as `rotate` makes it.
    private func rotated() throws -> (KeyringRecord, DataKey) {
        let next = try DataKey.generate()
        let wrapped = try #require(record.wrapped[first.id])
        let kek = try PassphraseKDF.derive(from: passphrase, salt: wrapped.salt, parameters: wrapped.parameters)
        let rotation = try record.next(keys: [first, next]) { (keys, manifest) throws(EncryptionError) in
            keys[next.id] = try WrappedKey.wrap(next, with: kek)
            manifest.keys[first.id]?.state = .retiring
            manifest.keys[next.id] = KeyringManifest.Entry(state: .current, wrapDigest: "")
            manifest.current = next.id
        }
        return (rotation, next)
    }

    // MARK: - Verifying

    @Test func aKeyringVerifiesUnderItsKeysAfterTheRoundTrip() throws {
        let stored = try throughTheServer(record)
        #expect(try stored.verify(with: [first]) == 1)
        #expect(stored.problems.isEmpty)
        #expect(stored.manifest == record.manifest)
    }

    @Test(arguments: ["its version raised", "its plaintext period closed"])
    func aManifestTheOperatorEditedDoesNotVerify(_ edit: String) throws {
        let forged = try edited(record) { manifest in
            if edit == "its version raised" { manifest["version"] = 9 } else { manifest["plaintext"] = "closed" }
        }
        #expect(throws: EncryptionError.self, "\(edit)") { try forged.verify(with: [first]) }
    }

    @Test func aKeyringNamingAnotherCurrentKeyDoesNotVerify() throws {
        let (rotation, next) = try rotated()
        // The operator puts the old key back as current, in the rotated keyring.
        let forged = try edited(rotation) { manifest in
            manifest["current"] = .string(first.id.rawValue)
            var keys = manifest["keys"]?.objectValue ?? [:]
            keys[first.id.rawValue] = .object(["state": "current", "wrap": keys[first.id.rawValue]?["wrap"] ?? ""])
            keys[next.id.rawValue] = .object(["state": "retiring", "wrap": keys[next.id.rawValue]?["wrap"] ?? ""])
            manifest["keys"] = .object(keys)
        }
        #expect(throws: EncryptionError.self) { try forged.verify(with: [first]) }
        #expect(throws: EncryptionError.self) { try forged.verify(with: [first, next]) }
    }

    @Test func aKeyringMadeWithoutTheReadersKeysDoesNotVerify() throws {
        let stranger = try DataKey.generate()
        let wrapped = try WrappedKey.wrap(stranger, passphrase: passphrase, parameters: cheap)
        let foreign = try KeyringRecord.make(
            version: 5, current: stranger.id, identity: stranger.id, plaintextClosed: true, wrapped: [stranger.id: wrapped],
            states: [stranger.id: .current], keys: [stranger])
        #expect(throws: EncryptionError.keyringNotAuthentic(reason: "it lists none of the keys this device holds")) {
            try foreign.verify(with: [first])
        }
    }

    /// A device still on the rotated-out key verifies the rotation that retired it, and
    /// learns the current key is one it does not hold.
    @Test func aRotationVerifiesUnderTheKeyItRetires() throws {
        let (rotation, next) = try rotated()
        let stored = try throughTheServer(rotation)
        #expect(try stored.verify(with: [first]) == 1)
        #expect(stored.manifest.current == next.id)
        #expect(stored.manifest.version == 2)
        #expect(stored.manifest.keys[first.id]?.state == .retiring)
    }

    @Test func theManifestsBytesAreLengthPrefixedAndOrderedByKey() throws {
        let manifest = KeyringManifest(
            version: 3, current: try KeyID("00000000000000bb"), identity: try KeyID("00000000000000aa"), plaintextClosed: true,
            keys: [try KeyID("00000000000000bb"): .init(state: .current, wrapDigest: String(repeating: "1", count: 64)),
                   try KeyID("00000000000000aa"): .init(state: .retired, wrapDigest: String(repeating: "2", count: 64))])
        let expected = AssociatedData.of([
            "shelf keyring", "2", "3", "00000000000000bb", "00000000000000aa", "closed", "2",
            "00000000000000aa", "retired", String(repeating: "2", count: 64),
            "00000000000000bb", "current", String(repeating: "1", count: 64),
        ])
        #expect(manifest.authenticatedBytes == expected)
    }

    // MARK: - Opening with the passphrase

    @Test func thePassphraseOpensTheKeysTheManifestLists() throws {
        let (rotation, next) = try rotated()
        let (keyring, problems) = try throughTheServer(rotation).open(passphrase: passphrase)
        #expect(keyring.current.id == next.id)
        #expect(keyring.older.map(\.id) == [first.id])
        #expect(problems.isEmpty)
    }

    @Test func aWrongPassphraseIsWrong() throws {
        #expect(throws: EncryptionError.wrongPassphrase) { try record.open(passphrase: try Passphrase("not it")) }
    }

    /// One extra wrapped key that does not open is reported as such, not as a wrong passphrase.
    @Test func anExtraEntryIsReportedAndIgnored() throws {
        let stranger = try DataKey.generate()
        var fields = record.fields
        var keys = try #require(fields["keys"]?.objectValue)
        keys[stranger.id.rawValue] = .object(try WrappedKey.wrap(stranger, passphrase: try Passphrase("other"), parameters: cheap).fields)
        fields["keys"] = .object(keys)
        let stored = try KeyringRecord(fields: WireJSON.fields(WireJSON.data(fields)))
        let (keyring, problems) = try stored.open(passphrase: passphrase)
        #expect(keyring.current.id == first.id)
        #expect(problems == [.unlisted(stranger.id)])
    }

    @Test func aDamagedEntryOfTheCurrentKeyIsReportedAsDamage() throws {
        let (rotation, next) = try rotated()
        var fields = rotation.fields
        var keys = try #require(fields["keys"]?.objectValue)
        keys[next.id.rawValue] = .object(try WrappedKey.wrap(next, passphrase: try Passphrase("other"), parameters: cheap).fields)
        fields["keys"] = .object(keys)
        let stored = try KeyringRecord(fields: WireJSON.fields(WireJSON.data(fields)))
        do {
            _ = try stored.open(passphrase: passphrase)
            Issue.record("opened")
        } catch {
            guard case .keyringDamaged(let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains(next.id.rawValue))
        }
    }

    @Test func aDamagedEntryOfARetiredKeyIsAWarning() throws {
        let (rotation, next) = try rotated()
        var fields = rotation.fields
        var keys = try #require(fields["keys"]?.objectValue)
        keys[first.id.rawValue] = "not a wrapped key"
        fields["keys"] = .object(keys)
        let stored = try KeyringRecord(fields: WireJSON.fields(WireJSON.data(fields)))
        let (keyring, problems) = try stored.open(passphrase: passphrase)
        #expect(keyring.current.id == next.id)
        #expect(problems == [.missing(first.id)])
    }

    @Test func aManifestWithTwoCurrentKeysIsMalformed() throws {
        let (rotation, _) = try rotated()
        #expect(throws: EncryptionError.self) {
            try edited(rotation) { manifest in
                var keys = manifest["keys"]?.objectValue ?? [:]
                keys[first.id.rawValue] = .object(["state": "current", "wrap": keys[first.id.rawValue]?["wrap"] ?? ""])
                manifest["keys"] = .object(keys)
            }
        }
    }
}
