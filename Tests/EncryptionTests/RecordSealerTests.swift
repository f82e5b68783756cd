import Domain
@testable import Encryption
import Testing

@Suite("Sealing and opening records")
struct RecordSealerTests {
    let keyring: Keyring
    let sealer: RecordSealer

    init() throws {
        keyring = Keyring(current: try DataKey.generate())
        sealer = RecordSealer(keyring: keyring, bucket: "default")
    }

    static let book: [String: JSONValue] = [
        "id": "gr-42",
        "last_modified": 1_700_000_000_123,
        "title": "The Dispossessed",
        "author_name": "Ursula K. Le Guin",
        "finished": true,
        "rating": 4.5,
        "shelves": ["to-read", "favourites"],
        "_shelf_revs": ["a1b2", "c3d4"],
        "book_id": nil,
    ]

    // MARK: - Round trips

    @Test func aSealedRecordOpensToTheSameFields() throws {
        let sealed = try sealer.seal(Self.book, in: "books")
        #expect(try sealer.open(sealed, in: "books") == Self.book)
    }

    @Test func onlyTheServersFieldsStayInTheClear() throws {
        let sealed = try sealer.seal(Self.book, in: "books")
        #expect(Set(sealed.keys) == ["id", "last_modified", "shelf_enc"])
        #expect(sealed["id"] == "gr-42")
        #expect(sealed["last_modified"] == 1_700_000_000_123)
        let envelope = try #require(sealed["shelf_enc"]?.objectValue)
        #expect(Set(envelope.keys) == ["v", "kid", "n", "c"])
        #expect(envelope["v"] == 1)
        #expect(envelope["kid"] == .string(keyring.current.id.rawValue))
        let text = String(describing: sealed)
        for secret in ["Dispossessed", "Le Guin", "a1b2", "favourites", "_shelf_revs"] {
            #expect(!text.contains(secret))
        }
    }

    @Test func aRecordTheServerHasNotStampedHasNoStamp() throws {
        var record = Self.book
        record["last_modified"] = nil
        let sealed = try sealer.seal(record, in: "books")
        #expect(sealed["last_modified"] == nil)
        #expect(try sealer.open(sealed, in: "books") == record)
    }

    /// The stamp is the server's: it changes on every write and is not sealed, so a
    /// sealed body pushed again opens with whatever stamp the server gave it.
    @Test func theOpenedStampIsTheServers() throws {
        var sealed = try sealer.seal(Self.book, in: "books")
        sealed["last_modified"] = 1_800_000_000_000
        #expect(try sealer.open(sealed, in: "books")["last_modified"] == 1_800_000_000_000)
    }

    @Test func twoSealsOfOneRecordUseDifferentNonces() throws {
        let first = try SealedRecord(fields: sealer.seal(Self.book, in: "books"))
        let second = try SealedRecord(fields: sealer.seal(Self.book, in: "books"))
        #expect(first.nonce != second.nonce)
        #expect(first.ciphertext != second.ciphertext)
    }

    @Test func sizesAreRevealedOnlyToWithinAPaddingBlock() throws {
        var short = Self.book
        short["title"] = "A"
        var longer = Self.book
        longer["title"] = "Abc"
        let a = try SealedRecord(fields: sealer.seal(short, in: "books")).ciphertext.count
        let b = try SealedRecord(fields: sealer.seal(longer, in: "books")).ciphertext.count
        #expect(a == b)
        #expect((a - XChaCha20Poly1305.tagLength) % RecordSealer.paddingBlock == 0)
    }

    @Test func tombstonesStayAsKintoSendsThem() throws {
        let tombstone: [String: JSONValue] = ["id": "gr-42", "last_modified": 1_700_000_000_999, "deleted": true]
        #expect(try sealer.seal(tombstone, in: "books") == tombstone)
        #expect(try sealer.open(tombstone, in: "books") == tombstone)
        var withContent = tombstone
        withContent["title"] = "The Dispossessed"
        #expect(try sealer.seal(withContent, in: "books") == tombstone)
    }

    // MARK: - Refusals

    @Test func aTamperedByteIsRefused() throws {
        let sealed = try sealer.seal(Self.book, in: "books")
        let envelope = try SealedRecord(fields: sealed)
        for index in [0, envelope.ciphertext.count / 2, envelope.ciphertext.count - 1] {
            var ciphertext = envelope.ciphertext
            ciphertext[index] ^= 0x01
            let altered = SealedRecord(id: envelope.id, lastModified: envelope.lastModified, keyID: envelope.keyID,
                                       nonce: envelope.nonce, ciphertext: ciphertext)
            #expect(throws: EncryptionError.tampered(record: RecordAddress(bucket: "default", collection: "books", id: "gr-42"))) {
                try sealer.open(altered.fields, in: "books")
            }
        }
    }

    @Test func aNonceAlteredIsRefused() throws {
        let envelope = try SealedRecord(fields: sealer.seal(Self.book, in: "books"))
        var nonce = envelope.nonce
        nonce[3] ^= 0x80
        let altered = SealedRecord(id: envelope.id, lastModified: envelope.lastModified, keyID: envelope.keyID,
                                   nonce: nonce, ciphertext: envelope.ciphertext)
        #expect(throws: EncryptionError.tampered(record: RecordAddress(bucket: "default", collection: "books", id: "gr-42"))) {
            try sealer.open(altered.fields, in: "books")
        }
    }

    @Test func ciphertextsSwappedBetweenTwoRecordsAreRefused() throws {
        var other = Self.book
        other["id"] = "gr-43"
        let first = try sealer.seal(Self.book, in: "books")
        let second = try sealer.seal(other, in: "books")
        var swapped = second
        swapped["shelf_enc"] = first["shelf_enc"]
        #expect(throws: EncryptionError.tampered(record: RecordAddress(bucket: "default", collection: "books", id: "gr-43"))) {
            try sealer.open(swapped, in: "books")
        }
    }

    @Test func aRecordMovedToAnotherCollectionIsRefused() throws {
        let sealed = try sealer.seal(Self.book, in: "books")
        #expect(throws: EncryptionError.tampered(record: RecordAddress(bucket: "default", collection: "notes", id: "gr-42"))) {
            try sealer.open(sealed, in: "notes")
        }
    }

    @Test func aRecordMovedToAnotherBucketIsRefused() throws {
        let sealed = try sealer.seal(Self.book, in: "books")
        let elsewhere = RecordSealer(keyring: keyring, bucket: "shared")
        #expect(throws: EncryptionError.tampered(record: RecordAddress(bucket: "shared", collection: "books", id: "gr-42"))) {
            try elsewhere.open(sealed, in: "books")
        }
    }

    @Test func aKeyIDChangedInTheEnvelopeIsRefused() throws {
        let older = try DataKey.generate()
        let ring = Keyring(current: keyring.current, older: [older])
        let envelope = try SealedRecord(fields: RecordSealer(keyring: ring, bucket: "default").seal(Self.book, in: "books"))
        let relabelled = SealedRecord(id: envelope.id, lastModified: envelope.lastModified, keyID: older.id,
                                      nonce: envelope.nonce, ciphertext: envelope.ciphertext)
        #expect(throws: EncryptionError.tampered(record: RecordAddress(bucket: "default", collection: "books", id: "gr-42"))) {
            try RecordSealer(keyring: ring, bucket: "default").open(relabelled.fields, in: "books")
        }
    }

    @Test func aKeyThisDeviceLacksIsNamed() throws {
        let sealed = try sealer.seal(Self.book, in: "books")
        let stranger = RecordSealer(keyring: Keyring(current: try DataKey.generate()), bucket: "default")
        #expect(throws: EncryptionError.unknownKey(keyring.current.id)) {
            try stranger.open(sealed, in: "books")
        }
    }

    @Test func aPlaintextRecordIsNotSealed() throws {
        #expect(throws: EncryptionError.notSealed(record: RecordAddress(bucket: "default", collection: "books", id: "gr-42"))) {
            try sealer.open(Self.book, in: "books")
        }
    }

    @Test(arguments: [
        ("no id", ["shelf_enc": JSONValue.object([:])]),
        ("an id Kinto refuses", ["id": "a/b", "shelf_enc": .object([:])]),
        ("envelope not an object", ["id": "x", "shelf_enc": "abc"]),
        ("member beside the envelope", ["id": "x", "title": "Plain", "shelf_enc": .object([:])]),
        ("no version", ["id": "x", "shelf_enc": .object(["kid": "0123456789abcdef", "n": "", "c": ""])]),
        ("kid not hex", ["id": "x", "shelf_enc": .object(["v": 1, "kid": "ZZZ", "n": "", "c": ""])]),
        ("short nonce", ["id": "x", "shelf_enc": .object(["v": 1, "kid": "0123456789abcdef", "n": "AAAA", "c": "AAAA"])]),
        ("ciphertext not base64", ["id": "x", "shelf_enc": .object(["v": 1, "kid": "0123456789abcdef",
                                                                     "n": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "c": "%%%"])]),
        ("extra envelope member", ["id": "x", "shelf_enc": .object(["v": 1, "kid": "0123456789abcdef", "n": "", "c": "", "x": 1])]),
    ] as [(String, [String: JSONValue])])
    func aMalformedEnvelopeIsRefused(_ label: String, _ record: [String: JSONValue]) throws {
        do {
            _ = try sealer.open(record, in: "books")
            Issue.record("\(label): opened")
        } catch {
            guard case .malformed = error else { Issue.record("\(label): \(error)"); return }
        }
    }

    @Test func aNewerEnvelopeVersionIsNamed() throws {
        var sealed = try sealer.seal(Self.book, in: "books")
        var envelope = try #require(sealed["shelf_enc"]?.objectValue)
        envelope["v"] = 2
        sealed["shelf_enc"] = .object(envelope)
        #expect(throws: EncryptionError.unsupportedFormat(version: 2)) { try sealer.open(sealed, in: "books") }
    }

    @Test func aSealedRecordIsNotSealedTwice() throws {
        let sealed = try sealer.seal(Self.book, in: "books")
        #expect(throws: EncryptionError.malformed(reason: "record books/gr-42 in bucket default is sealed already")) {
            try sealer.seal(sealed, in: "books")
        }
    }

    // MARK: - Keyrings

    @Test func recordsSealedBeforeARotationStillOpen() throws {
        let before = try sealer.seal(Self.book, in: "books")
        let rotated = keyring.rotated(to: try DataKey.generate())
        let after = RecordSealer(keyring: rotated, bucket: "default")
        #expect(try after.open(before, in: "books") == Self.book)
        let resealed = try SealedRecord(fields: after.seal(Self.book, in: "books"))
        #expect(resealed.keyID == rotated.current.id)
        #expect(rotated.older.map(\.id) == [keyring.current.id])
    }

    /// `sodium_init()` runs once, whichever thread asks first.
    @Test func keysMadeOnManyThreadsAtOnceAreAllDistinct() async throws {
        let ids = try await withThrowingTaskGroup(of: KeyID.self) { group in
            for _ in 0 ..< 32 {
                group.addTask { try DataKey.generate().id }
            }
            return try await group.reduce(into: Set<KeyID>()) { $0.insert($1) }
        }
        #expect(ids.count == 32)
    }

    @Test func aKeyringKeepsEachKeyOnce() throws {
        let key = try DataKey.generate()
        let ring = Keyring(current: key, older: [key, keyring.current, keyring.current])
        #expect(ring.keys.map(\.id) == [key.id, keyring.current.id])
    }
}
