import Domain
import Foundation
@testable import Encryption
import Records
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

    static let address = RecordAddress(bucket: "default", collection: "books", id: "gr-42")

    /// The book as it opens: with its sequence number.
    static func opened(_ record: [String: JSONValue], sequence: Int64) -> [String: JSONValue] {
        var fields = record
        fields["_shelf_seq"] = .number(Double(sequence))
        return fields
    }

    /// A sealed record as the scanner reads it from the server's bytes.
    static func scanned(_ sealed: [String: JSONValue], stamp: Int64 = 1_700_000_000_123) throws -> RawRecord {
        var fields = sealed
        fields["last_modified"] = .number(Double(stamp))
        return try RawRecord(scanning: WireJSON.data(fields))
    }

    // MARK: - Round trips

    @Test func aSealedRecordOpensToTheSameFieldsAndItsNumber() throws {
        let sealed = try sealer.seal(Self.book, in: "books", sequence: 7)
        #expect(try sealer.open(sealed, in: "books") == Self.opened(Self.book, sequence: 7))
    }

    @Test func aScannedRecordOpensToTheSameFieldsWithoutADecoderRoundTrip() throws {
        let record = try Self.scanned(sealer.seal(Self.book, in: "books", sequence: 7))
        let opened = try sealer.open(record, in: "books")
        #expect(opened.sequence == 7)
        #expect(opened.revision == "c3d4")
        #expect(opened.keyID == keyring.current.id)
        #expect(!opened.isDeletion)
        #expect(opened.record.id == "gr-42")
        #expect(opened.record.lastModified == 1_700_000_000_123)
        #expect(try WireJSON.fields(opened.record.json) == Self.opened(Self.book, sequence: 7))
        // The store's bytes are the content with the server's members in front: read again, they are one record.
        let again = try RawRecord(scanning: opened.record.json)
        #expect(again.id == "gr-42" && again.lastModified == 1_700_000_000_123 && !again.isDeleted)
    }

    /// One opener opens a page's records with buffers and authenticated-data parts kept
    /// from record to record: a long record then a short one, another collection, another
    /// key, a deletion, and a seal moved between collections all open as one at a time would.
    @Test func oneOpenerForManyRecordsOpensEachAsAloneAndStillRefusesAMovedSeal() throws {
        let older = try DataKey.generate()
        let rotated = RecordSealer(keyring: Keyring(current: try DataKey.generate(), older: [older]), bucket: "default")
        let underOlder = RecordSealer(keyring: Keyring(current: older), bucket: "default")
        var long = Self.book
        long["summary"] = .string(String(repeating: "a long summary ", count: 40))
        let records = [
            (try Self.scanned(rotated.seal(long, in: "books", sequence: 9)), "books"),
            (try Self.scanned(rotated.seal(Self.book, in: "books", sequence: 2, nonce: nil)), "books"),
            (try Self.scanned(rotated.seal(["id": "n1", "body": "a note"], in: "notes", sequence: 1)), "notes"),
            (try Self.scanned(underOlder.seal(["id": "gr-7", "title": "Older key"], in: "books", sequence: 4)), "books"),
            (try Self.scanned(rotated.sealDeletion(id: "gr-8", lineage: ["r1"], sequence: 5, in: "books")), "books"),
        ]
        let opener = RecordOpener(rotated)
        for (record, collection) in records {
            let alone = try rotated.open(record, in: collection)
            let together = try opener.open(record, in: collection)
            #expect(together.record == alone.record && together.sequence == alone.sequence && together.keyID == alone.keyID)
        }
        let note = records[2].0
        #expect(throws: EncryptionError.tampered(record: RecordAddress(bucket: "default", collection: "books", id: "n1"))) {
            try opener.open(note, in: "books")
        }
        #expect(try opener.open(records[1].0, in: "books").record.id == "gr-42")
    }

    /// The opener checks a key id once and remembers its key for the records after it: a
    /// record naming another key id is still checked in full, and still refused when the
    /// keyring does not list it or when it is not a key id at all.
    @Test func oneOpenerChecksEveryKeyIDThatIsNotTheLastOnes() throws {
        let stranger = RecordSealer(keyring: Keyring(current: try DataKey.generate()), bucket: "default")
        let known = try Self.scanned(sealer.seal(Self.book, in: "books", sequence: 1))
        let unknown = try Self.scanned(stranger.seal(Self.book, in: "books", sequence: 2))
        var forged = try sealer.seal(Self.book, in: "books", sequence: 3)
        var envelope = try #require(forged["shelf_enc"]?.objectValue)
        envelope["kid"] = .string(sealer.keyring.current.id.rawValue.uppercased())
        forged["shelf_enc"] = .object(envelope)
        let opener = RecordOpener(sealer)
        #expect(try opener.open(known, in: "books").keyID == sealer.keyring.current.id)
        #expect(throws: EncryptionError.unknownKey(stranger.keyring.current.id)) { try opener.open(unknown, in: "books") }
        #expect(throws: EncryptionError.malformed(reason: "a key id is not 16 lowercase hex digits")) {
            try opener.open(try Self.scanned(forged), in: "books")
        }
        #expect(try opener.open(known, in: "books").keyID == sealer.keyring.current.id)
    }

    /// The store's bytes are written digit by digit: every stamp and sequence number reads back.
    @Test(arguments: [(0, 1), (9, 10), (1_700_000_000_123, SealedRecord.maximumSequence), (-5, 99)] as [(Int64, Int64)])
    func stampsAndNumbersAreWrittenAsTheyRead(_ stamp: Int64, _ sequence: Int64) throws {
        let record = try Self.scanned(sealer.seal(Self.book, in: "books", sequence: sequence), stamp: stamp)
        let opened = try sealer.open(record, in: "books")
        var expected = Self.opened(Self.book, sequence: sequence)
        expected["last_modified"] = .number(Double(stamp))
        #expect(try WireJSON.fields(opened.record.json) == expected)
    }

    @Test func anEmptyContentOpensToTheServersMembersAlone() throws {
        let record = try Self.scanned(sealer.seal(["id": "n1"], in: "notes", sequence: 1))
        let opened = try sealer.open(record, in: "notes")
        #expect(try WireJSON.fields(opened.record.json) == ["id": "n1", "last_modified": 1_700_000_000_123, "_shelf_seq": 1])
    }

    @Test func onlyTheServersFieldsStayInTheClear() throws {
        let sealed = try sealer.seal(Self.book, in: "books", sequence: 3)
        #expect(Set(sealed.keys) == ["id", "last_modified", "shelf_enc"])
        #expect(sealed["id"] == "gr-42")
        #expect(sealed["last_modified"] == 1_700_000_000_123)
        let envelope = try #require(sealed["shelf_enc"]?.objectValue)
        #expect(Set(envelope.keys) == ["v", "kid", "seq", "n", "c"])
        #expect(envelope["v"] == 2)
        #expect(envelope["seq"] == 3)
        #expect(envelope["kid"] == .string(keyring.current.id.rawValue))
        let text = String(describing: sealed)
        for secret in ["Dispossessed", "Le Guin", "a1b2", "favourites", "_shelf_revs"] {
            #expect(!text.contains(secret))
        }
    }

    @Test func theNumberIsNotSealedInsideTheContent() throws {
        var record = Self.book
        record["_shelf_seq"] = 99
        let sealed = try sealer.seal(record, in: "books", sequence: 4)
        #expect(try sealer.open(sealed, in: "books")["_shelf_seq"] == 4)
    }

    @Test func aRecordTheServerHasNotStampedHasNoStamp() throws {
        var record = Self.book
        record["last_modified"] = nil
        let sealed = try sealer.seal(record, in: "books", sequence: 1)
        #expect(sealed["last_modified"] == nil)
        #expect(try sealer.open(sealed, in: "books") == Self.opened(record, sequence: 1))
    }

    /// The stamp is the server's: it changes on every write and is not sealed, so a
    /// sealed body pushed again opens with whatever stamp the server gave it.
    @Test func theOpenedStampIsTheServers() throws {
        var sealed = try sealer.seal(Self.book, in: "books", sequence: 1)
        sealed["last_modified"] = 1_800_000_000_000
        #expect(try sealer.open(sealed, in: "books")["last_modified"] == 1_800_000_000_000)
        #expect(try sealer.open(Self.scanned(sealed, stamp: 1_800_000_000_000), in: "books").record.lastModified == 1_800_000_000_000)
    }

    @Test func twoSealsOfOneRecordUseDifferentNonces() throws {
        let first = try SealedRecord(fields: sealer.seal(Self.book, in: "books", sequence: 1))
        let second = try SealedRecord(fields: sealer.seal(Self.book, in: "books", sequence: 1))
        #expect(first.nonce != second.nonce)
        #expect(first.ciphertext != second.ciphertext)
    }

    @Test func sizesAreRevealedOnlyToWithinAPaddingBlock() throws {
        var short = Self.book
        short["title"] = "A"
        var longer = Self.book
        longer["title"] = "Abc"
        let a = try SealedRecord(fields: sealer.seal(short, in: "books", sequence: 1)).ciphertext.count
        let b = try SealedRecord(fields: sealer.seal(longer, in: "books", sequence: 1)).ciphertext.count
        #expect(a == b)
        #expect((a - XChaCha20Poly1305.tagLength) % RecordSealer.paddingBlock == 0)
    }

    // MARK: - Deletions

    @Test func aDeletionIsSealedAndOpensToATombstoneWithItsNumberAndLineage() throws {
        let sealed = try sealer.sealDeletion(id: "gr-42", lineage: ["a1b2", "e5f6"], sequence: 9, in: "books")
        #expect(Set(sealed.keys) == ["id", "shelf_enc"])
        #expect(sealed["shelf_enc"]?["del"] == true)
        let opened = try sealer.open(Self.scanned(sealed, stamp: 1_800_000_000_000), in: "books")
        #expect(opened.isDeletion)
        #expect(opened.record.isDeleted)
        #expect(opened.sequence == 9)
        #expect(opened.revision == "e5f6")
        #expect(opened.record.lastModified == 1_800_000_000_000)
        #expect(try sealer.open(sealed, in: "books")["_shelf_deleted"] == true)
    }

    /// The mark is authenticated: a server cannot turn a deletion into a live version, or
    /// a live version into a deletion.
    @Test func theDeletionMarkCannotBeAddedOrTakenAway() throws {
        var deletion = try sealer.sealDeletion(id: "gr-42", lineage: ["e5f6"], sequence: 9, in: "books")
        var envelope = try #require(deletion["shelf_enc"]?.objectValue)
        #expect(envelope["del"] == true)
        envelope["del"] = nil
        deletion["shelf_enc"] = .object(envelope)
        #expect(throws: EncryptionError.tampered(record: Self.address)) { try sealer.open(Self.scanned(deletion), in: "books") }

        var live = try sealer.seal(Self.book, in: "books", sequence: 9)
        var liveEnvelope = try #require(live["shelf_enc"]?.objectValue)
        liveEnvelope["del"] = true
        live["shelf_enc"] = .object(liveEnvelope)
        #expect(throws: EncryptionError.tampered(record: Self.address)) { try sealer.open(Self.scanned(live), in: "books") }
        liveEnvelope["del"] = false
        live["shelf_enc"] = .object(liveEnvelope)
        #expect(throws: EncryptionError.self) { try sealer.open(Self.scanned(live), in: "books") }
    }

    @Test func aTombstoneOrADeletionMarkIsNotSealedAsContent() throws {
        let tombstone: [String: JSONValue] = ["id": "gr-42", "last_modified": 1_700_000_000_999, "deleted": true]
        #expect(throws: EncryptionError.self) { try sealer.seal(tombstone, in: "books", sequence: 1) }
        #expect(throws: EncryptionError.self) { try sealer.seal(["id": "gr-42", "_shelf_deleted": true], in: "books", sequence: 1) }
    }

    @Test func aKintoTombstoneIsNotSealed() throws {
        let record = try RawRecord(scanning: Data(#"{"id":"gr-42","last_modified":5,"deleted":true}"#.utf8))
        #expect(throws: EncryptionError.notSealed(record: Self.address)) { try sealer.open(record, in: "books") }
    }

    // MARK: - Refusals

    @Test func aTamperedByteIsRefused() throws {
        let envelope = try SealedRecord(fields: sealer.seal(Self.book, in: "books", sequence: 1))
        for index in [0, envelope.ciphertext.count / 2, envelope.ciphertext.count - 1] {
            var ciphertext = envelope.ciphertext
            ciphertext[index] ^= 0x01
            let altered = SealedRecord(id: envelope.id, lastModified: envelope.lastModified, format: 2, keyID: envelope.keyID,
                                       sequence: envelope.sequence, nonce: envelope.nonce, ciphertext: ciphertext)
            #expect(throws: EncryptionError.tampered(record: Self.address)) { try sealer.open(altered.fields, in: "books") }
            #expect(throws: EncryptionError.tampered(record: Self.address)) { try sealer.open(Self.scanned(altered.fields), in: "books") }
        }
    }

    @Test func aNonceAlteredIsRefused() throws {
        let envelope = try SealedRecord(fields: sealer.seal(Self.book, in: "books", sequence: 1))
        var nonce = envelope.nonce
        nonce[3] ^= 0x80
        let altered = SealedRecord(id: envelope.id, lastModified: envelope.lastModified, format: 2, keyID: envelope.keyID,
                                   sequence: envelope.sequence, nonce: nonce, ciphertext: envelope.ciphertext)
        #expect(throws: EncryptionError.tampered(record: Self.address)) { try sealer.open(altered.fields, in: "books") }
    }

    /// An old version cannot pass for a newer one: the number is authenticated.
    @Test func aNumberChangedInTheEnvelopeIsRefused() throws {
        let envelope = try SealedRecord(fields: sealer.seal(Self.book, in: "books", sequence: 3))
        for sequence: Int64 in [2, 4, 1_000] {
            let renumbered = SealedRecord(id: envelope.id, lastModified: envelope.lastModified, format: 2, keyID: envelope.keyID,
                                          sequence: sequence, nonce: envelope.nonce, ciphertext: envelope.ciphertext)
            #expect(throws: EncryptionError.tampered(record: Self.address)) { try sealer.open(Self.scanned(renumbered.fields), in: "books") }
        }
    }

    @Test func ciphertextsSwappedBetweenTwoRecordsAreRefused() throws {
        var other = Self.book
        other["id"] = "gr-43"
        let first = try sealer.seal(Self.book, in: "books", sequence: 1)
        var swapped = try sealer.seal(other, in: "books", sequence: 1)
        swapped["shelf_enc"] = first["shelf_enc"]
        #expect(throws: EncryptionError.tampered(record: RecordAddress(bucket: "default", collection: "books", id: "gr-43"))) {
            try sealer.open(swapped, in: "books")
        }
    }

    @Test func aRecordMovedToAnotherCollectionIsRefused() throws {
        let sealed = try sealer.seal(Self.book, in: "books", sequence: 1)
        #expect(throws: EncryptionError.tampered(record: RecordAddress(bucket: "default", collection: "notes", id: "gr-42"))) {
            try sealer.open(sealed, in: "notes")
        }
    }

    @Test func aRecordMovedToAnotherBucketIsRefused() throws {
        let sealed = try sealer.seal(Self.book, in: "books", sequence: 1)
        let elsewhere = RecordSealer(keyring: keyring, bucket: "shared")
        #expect(throws: EncryptionError.tampered(record: RecordAddress(bucket: "shared", collection: "books", id: "gr-42"))) {
            try elsewhere.open(sealed, in: "books")
        }
    }

    @Test func aKeyIDChangedInTheEnvelopeIsRefused() throws {
        let older = try DataKey.generate()
        let ring = Keyring(current: keyring.current, older: [older])
        let envelope = try SealedRecord(fields: RecordSealer(keyring: ring, bucket: "default").seal(Self.book, in: "books", sequence: 1))
        let relabelled = SealedRecord(id: envelope.id, lastModified: envelope.lastModified, format: 2, keyID: older.id,
                                      sequence: 1, nonce: envelope.nonce, ciphertext: envelope.ciphertext)
        #expect(throws: EncryptionError.tampered(record: Self.address)) {
            try RecordSealer(keyring: ring, bucket: "default").open(relabelled.fields, in: "books")
        }
    }

    @Test func aKeyThisDeviceLacksIsNamed() throws {
        let sealed = try sealer.seal(Self.book, in: "books", sequence: 1)
        let stranger = RecordSealer(keyring: Keyring(current: try DataKey.generate()), bucket: "default")
        #expect(throws: EncryptionError.unknownKey(keyring.current.id)) { try stranger.open(sealed, in: "books") }
        #expect(throws: EncryptionError.unknownKey(keyring.current.id)) { try stranger.open(Self.scanned(sealed), in: "books") }
    }

    @Test func aPlaintextRecordIsNotSealed() throws {
        #expect(throws: EncryptionError.notSealed(record: Self.address)) { try sealer.open(Self.book, in: "books") }
        #expect(throws: EncryptionError.notSealed(record: Self.address)) {
            try sealer.open(RawRecord(scanning: WireJSON.data(Self.book)), in: "books")
        }
    }

    @Test(arguments: [
        ("no id", ["shelf_enc": JSONValue.object([:])]),
        ("an id Kinto refuses", ["id": "a/b", "shelf_enc": .object([:])]),
        ("envelope not an object", ["id": "x", "shelf_enc": "abc"]),
        ("member beside the envelope", ["id": "x", "title": "Plain", "shelf_enc": .object([:])]),
        ("\"deleted\": false beside the envelope", ["id": "x", "deleted": false, "shelf_enc": .object([
            "v": 2, "kid": "0123456789abcdef", "seq": 1, "n": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "c": "AAAAAAAAAAAAAAAAAAAAAA==",
        ])]),
        ("no version", ["id": "x", "shelf_enc": .object(["kid": "0123456789abcdef", "n": "", "c": ""])]),
        ("kid not hex", ["id": "x", "shelf_enc": .object(["v": 2, "kid": "ZZZ", "seq": 1, "n": "", "c": ""])]),
        ("no number", ["id": "x", "shelf_enc": .object(["v": 2, "kid": "0123456789abcdef", "n": "", "c": ""])]),
        ("number zero", ["id": "x", "shelf_enc": .object(["v": 2, "kid": "0123456789abcdef", "seq": 0, "n": "", "c": ""])]),
        ("number not an integer", ["id": "x", "shelf_enc": .object(["v": 2, "kid": "0123456789abcdef", "seq": 1.5, "n": "", "c": ""])]),
        ("short nonce", ["id": "x", "shelf_enc": .object(["v": 2, "kid": "0123456789abcdef", "seq": 1, "n": "AAAA", "c": "AAAA"])]),
        ("ciphertext not base64", ["id": "x", "shelf_enc": .object(["v": 2, "kid": "0123456789abcdef", "seq": 1,
                                                                     "n": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "c": "%%%"])]),
        ("extra envelope member", ["id": "x", "shelf_enc": .object(["v": 2, "kid": "0123456789abcdef", "seq": 1, "n": "", "c": "", "x": 1])]),
        ("a number in a format 1 envelope", ["id": "x", "shelf_enc": .object(["v": 1, "kid": "0123456789abcdef", "seq": 1, "n": "", "c": ""])]),
    ] as [(String, [String: JSONValue])])
    func aMalformedEnvelopeIsRefusedByBothReaders(_ label: String, _ record: [String: JSONValue]) throws {
        do {
            _ = try sealer.open(record, in: "books")
            Issue.record("\(label): opened as fields")
        } catch {
            guard case .malformed = error else { Issue.record("\(label): \(error)"); return }
        }
        var stamped = record
        stamped["last_modified"] = 1
        guard stamped["id"]?.stringValue != nil else { return }  // the scanner refuses a record without an id itself
        do {
            _ = try sealer.open(RawRecord(scanning: WireJSON.data(stamped)), in: "books")
            Issue.record("\(label): opened as scanned")
        } catch let error as EncryptionError {
            guard case .malformed = error else { Issue.record("\(label): \(error)"); return }
        }
    }

    /// One parse: the id the seal is checked under is the id the record is stored under.
    @Test func aRecordNamingItsIDTwiceIsRefusedBeforeAnythingOpensIt() throws {
        let sealed = try sealer.seal(Self.book, in: "books", sequence: 1)
        let json = String(decoding: try WireJSON.data(sealed), as: UTF8.self)
        for doubled in [
            json.replacingOccurrences(of: #""id":"gr-42""#, with: #""id":"gr-42","id":"gr-43""#),
            json.replacingOccurrences(of: #""id":"gr-42""#, with: #""id":"gr-42","\u0069d":"gr-43""#),
            json.replacingOccurrences(of: #""shelf_enc":"#, with: #""shelf_enc":{},"shelf_enc":"#),
        ] {
            #expect(throws: JSONScanError.self) { try RawRecord(scanning: Data(doubled.utf8)) }
            #expect(throws: WireJSONError.self) { try WireJSON.fields(Data(doubled.utf8)) }
        }
    }

    @Test func aNewerEnvelopeVersionIsNamed() throws {
        var sealed = try sealer.seal(Self.book, in: "books", sequence: 1)
        var envelope = try #require(sealed["shelf_enc"]?.objectValue)
        envelope["v"] = 3
        sealed["shelf_enc"] = .object(envelope)
        #expect(throws: EncryptionError.unsupportedFormat(version: 3)) { try sealer.open(sealed, in: "books") }
        #expect(throws: EncryptionError.unsupportedFormat(version: 3)) { try sealer.open(Self.scanned(sealed), in: "books") }
    }

    @Test func aSealedRecordIsNotSealedTwice() throws {
        let sealed = try sealer.seal(Self.book, in: "books", sequence: 1)
        #expect(throws: EncryptionError.malformed(reason: "record books/gr-42 in bucket default is sealed already")) {
            try sealer.seal(sealed, in: "books", sequence: 2)
        }
    }

    // MARK: - Format 1

    /// An envelope written before sequence numbers still opens (while an account migrates),
    /// and says it has no number.
    @Test func aFormatOneEnvelopeOpensWithoutANumber() throws {
        var content = Self.book
        ServerOwnedFields.removeAll(from: &content)
        let padded = try RecordSealer.padded(Array(WireJSON.data(content)))
        let associatedData = AssociatedData.of(["shelf record", "1", keyring.current.id.rawValue, "default", "books", "gr-42"])
        let sealed = try XChaCha20Poly1305.seal(padded, associatedData: associatedData, key: keyring.current.bytes)
        let legacy = SealedRecord(id: "gr-42", lastModified: 1_700_000_000_123, format: 1, keyID: keyring.current.id, sequence: nil,
                                  nonce: sealed.nonce, ciphertext: sealed.ciphertext)
        #expect(legacy.fields["shelf_enc"]?["seq"] == nil)
        let opened = try sealer.open(Self.scanned(legacy.fields), in: "books")
        #expect(opened.format == 1)
        #expect(opened.sequence == nil)
        #expect(try WireJSON.fields(opened.record.json) == Self.book)
    }

    // MARK: - Keyrings

    @Test func recordsSealedBeforeARotationStillOpen() throws {
        let before = try sealer.seal(Self.book, in: "books", sequence: 1)
        let rotated = keyring.rotated(to: try DataKey.generate())
        let after = RecordSealer(keyring: rotated, bucket: "default")
        #expect(try after.open(before, in: "books") == Self.opened(Self.book, sequence: 1))
        let resealed = try SealedRecord(fields: after.seal(Self.book, in: "books", sequence: 2))
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
