import Domain
@testable import Encryption
import Foundation
import Testing

@Suite("Wrapping the data key with a passphrase")
struct WrappedKeyTests {
    @Test func aWrappedKeyOpensWithItsPassphrase() throws {
        let key = try DataKey.generate()
        let wrapped = try WrappedKey.wrap(key, passphrase: TestKeys.passphrase(), parameters: TestKeys.cheapParameters())
        let opened = try wrapped.unwrap(passphrase: TestKeys.passphrase())
        #expect(opened.id == key.id)
        #expect(opened.hasSameBytes(as: key))
    }

    @Test func aWrongPassphraseIsATypedError() throws {
        let wrapped = try WrappedKey.wrap(DataKey.generate(), passphrase: TestKeys.passphrase(), parameters: TestKeys.cheapParameters())
        #expect(throws: EncryptionError.wrongPassphrase) {
            try wrapped.unwrap(passphrase: TestKeys.passphrase("Correct horse battery staple"))
        }
    }

    @Test func theJSONFormRoundTripsThroughFieldsAndCodable() throws {
        let key = try DataKey.generate()
        let wrapped = try WrappedKey.wrap(key, passphrase: TestKeys.passphrase(), parameters: TestKeys.cheapParameters())
        let fields = wrapped.fields
        #expect(Set(fields.keys) == ["format", "kid", "kdf", "salt", "nonce", "ciphertext"])
        #expect(fields["kdf"] == .object(["name": "argon2id13", "ops": 1, "mem": 8192]))
        var record = fields
        record["id"] = "shelf-key"
        record["last_modified"] = 1_700_000_000_000
        #expect(try WrappedKey(fields: record) == wrapped)
        let json = try JSONEncoder().encode(wrapped)
        #expect(try JSONDecoder().decode(WrappedKey.self, from: json) == wrapped)
        #expect(try WrappedKey(fields: record).unwrap(passphrase: TestKeys.passphrase()).id == key.id)
    }

    /// The key id is bound as authenticated data: a wrapper relabelled with another id
    /// does not open, and one that opens to another key than it names is refused.
    @Test func aRelabelledKeyIDIsRefused() throws {
        let wrapped = try WrappedKey.wrap(DataKey.generate(), passphrase: TestKeys.passphrase(), parameters: TestKeys.cheapParameters())
        var fields = wrapped.fields
        fields["kid"] = .string(try DataKey.generate().id.rawValue)
        #expect(throws: EncryptionError.wrongPassphrase) {
            try WrappedKey(fields: fields).unwrap(passphrase: TestKeys.passphrase())
        }
    }

    @Test func aKeyWhoseIDDoesNotMatchItsWrapperIsRefused() throws {
        let key = try DataKey.generate()
        let named = try DataKey.generate().id
        let kek = try PassphraseKDF.derive(from: TestKeys.passphrase(), salt: .random(), parameters: TestKeys.cheapParameters())
        // A wrapper written by a faulty client: sealed correctly, but under another key's id.
        let associatedData = AssociatedData.of([
            "shelf wrapped key", "1", named.rawValue, "argon2id13", "1", "8192",
        ])
        let sealed = try XChaCha20Poly1305.seal(key.bytes, associatedData: associatedData, key: kek.bytes)
        let wrapped = WrappedKey(keyID: named, salt: kek.salt, parameters: kek.parameters,
                                 nonce: sealed.nonce, ciphertext: sealed.ciphertext)
        #expect(throws: EncryptionError.keyIDMismatch(expected: named, found: key.id)) {
            try wrapped.unwrap(with: kek)
        }
    }

    @Test func changingThePassphraseKeepsTheKey() throws {
        let key = try DataKey.generate()
        let wrapped = try WrappedKey.wrap(key, passphrase: TestKeys.passphrase(), parameters: TestKeys.cheapParameters())
        let rewrapped = try wrapped.rewrapped(from: TestKeys.passphrase(), to: TestKeys.passphrase("a new passphrase"),
                                              parameters: TestKeys.cheapParameters())
        #expect(rewrapped.keyID == key.id)
        #expect(rewrapped.salt != wrapped.salt)
        #expect(try rewrapped.unwrap(passphrase: TestKeys.passphrase("a new passphrase")).hasSameBytes(as: key))
        #expect(throws: EncryptionError.wrongPassphrase) { try rewrapped.unwrap(passphrase: TestKeys.passphrase()) }
    }

    @Test func oneDerivationOpensEveryKeyWrappedWithIt() throws {
        let kek = try PassphraseKDF.derive(from: TestKeys.passphrase(), salt: .random(), parameters: TestKeys.cheapParameters())
        let keys = [try DataKey.generate(), try DataKey.generate()]
        let wrapped = try keys.map { key throws(EncryptionError) in try WrappedKey.wrap(key, with: kek) }
        #expect(wrapped.allSatisfy { $0.opens(with: kek) })
        #expect(try wrapped.map { try $0.unwrap(with: kek).id } == keys.map(\.id))
    }

    @Test func aKeyEncryptionKeyOfAnotherSaltIsNotTried() throws {
        let wrapped = try WrappedKey.wrap(DataKey.generate(), passphrase: TestKeys.passphrase(), parameters: TestKeys.cheapParameters())
        let other = try PassphraseKDF.derive(from: TestKeys.passphrase(), salt: .random(), parameters: TestKeys.cheapParameters())
        #expect(!wrapped.opens(with: other))
        #expect(throws: EncryptionError.self) { try wrapped.unwrap(with: other) }
    }

    // MARK: - What a server may send

    @Test func aCostBeyondShelfsCapsIsRefusedBeforeDeriving() throws {
        let wrapped = try WrappedKey.wrap(DataKey.generate(), passphrase: TestKeys.passphrase(), parameters: TestKeys.cheapParameters())
        var fields = wrapped.fields
        fields["kdf"] = .object(["name": "argon2id13", "ops": 3, "mem": .number(Double(64 << 30))])
        #expect(throws: EncryptionError.self) { try WrappedKey(fields: fields) }
        fields["kdf"] = .object(["name": "argon2id13", "ops": 1000, "mem": 8192])
        #expect(throws: EncryptionError.self) { try WrappedKey(fields: fields) }
        fields["kdf"] = .object(["name": "scrypt", "ops": 1, "mem": 8192])
        #expect(throws: EncryptionError.self) { try WrappedKey(fields: fields) }
    }

    @Test func aNewerFormatIsNamed() throws {
        var fields = try WrappedKey.wrap(DataKey.generate(), passphrase: TestKeys.passphrase(), parameters: TestKeys.cheapParameters()).fields
        fields["format"] = 2
        #expect(throws: EncryptionError.unsupportedFormat(version: 2)) { try WrappedKey(fields: fields) }
    }

    @Test func aTruncatedCiphertextIsMalformed() throws {
        var fields = try WrappedKey.wrap(DataKey.generate(), passphrase: TestKeys.passphrase(), parameters: TestKeys.cheapParameters()).fields
        fields["ciphertext"] = "AAAA"
        #expect(throws: EncryptionError.malformed(reason: "a wrapped key's \"ciphertext\" is not base64 of 48 bytes")) {
            try WrappedKey(fields: fields)
        }
    }

    // MARK: - Parameters

    @Test func parametersOutsideTheBoundsAreRefused() {
        #expect(throws: EncryptionError.self) { try KDFParameters(opsLimit: 0, memoryBytes: 8192) }
        #expect(throws: EncryptionError.self) { try KDFParameters(opsLimit: 1, memoryBytes: 1024) }
        #expect(throws: EncryptionError.self) { try KDFParameters(opsLimit: 11, memoryBytes: 8192) }
        #expect(throws: EncryptionError.self) { try KDFParameters(opsLimit: 1, memoryBytes: (1 << 30) + 1) }
        #expect(KDFParameters.recommended.memoryBytes <= KDFParameters.maximumMemoryBytes)
    }

    @Test func theSameInputsDeriveTheSameKey() throws {
        let salt = try KDFSalt.random()
        let first = try PassphraseKDF.derive(from: TestKeys.passphrase(), salt: salt, parameters: TestKeys.cheapParameters())
        let second = try PassphraseKDF.derive(from: TestKeys.passphrase(), salt: salt, parameters: TestKeys.cheapParameters())
        let other = try PassphraseKDF.derive(from: TestKeys.passphrase(), salt: .random(), parameters: TestKeys.cheapParameters())
        #expect(first.bytes.hasSameBytes(as: second.bytes))
        #expect(!first.bytes.hasSameBytes(as: other.bytes))
    }
}
