import Domain
import Encryption
import Foundation
import Records
import Repositories
import Services
import Storage
import Sync
import TestSupport
import Testing

/// End-to-end encryption against a real Kinto: the server keeps sealed records only,
/// devices that hold the key merge field by field as before, and one that does not
/// leaves the account's collections alone.
@Suite("Encrypted accounts (real Kinto)")
struct EncryptedSyncTests {
    let server: KintoServer
    let user: TestUser

    init() async throws {
        server = try KintoServer.shared()
        user = try await server.newUser(prefix: "sealed")
    }

    /// Two devices holding b1 and b2 in the clear, then `a` turns encryption on and syncs.
    private func encryptedPair() async throws -> (EncryptedDevice, EncryptedDevice) {
        let a = try EncryptedDevice(user: user, server: server)
        let b = try EncryptedDevice(user: user, server: server)
        try a.device.saveBook("b1", title: "Dune")
        try a.device.saveBook("b2", title: "Solaris", author: "Stanisław Lem")
        #expect(await a.device.sync().outcome == .synced)
        #expect(await b.device.sync().outcome == .synced)
        #expect(try await a.enable("correct horse") == 2)
        #expect(await a.device.sync().outcome == .synced)
        return (a, b)
    }

    @Test func enablingSealsEveryRecordOnTheServerAndADeviceWithoutTheKeyLeavesThemAlone() async throws {
        let (a, b) = try await encryptedPair()

        // The server holds no title, author or lineage in the clear.
        for id in ["b1", "b2"] {
            let raw = try await a.device.rawServerBook(id)
            #expect(Set(raw.keys) == ["id", "last_modified", "shelf_enc"])
        }
        // Device b, not joined: nothing applied, nothing pushed over them, a clear message.
        try b.device.editBook("b1") { $0["finished"] = .bool(true) }
        let held = await b.device.sync()
        #expect(held.outcome == .needsAttention)
        #expect(held.message.contains("shelf encryption join"))
        #expect(try b.device.title("b1") == "Dune")
        #expect(try b.device.store.pendingCount() == 1)
        #expect(try await a.device.rawServerBook("b1")["shelf_enc"] != nil)
        #expect(try b.device.store.read { try $0.encryptionState().isEnabled })
    }

    /// The migration's list of envelopes goes through the run's paging loop, its guard
    /// and its pages fetched ahead: a collection listed in several pages (pages of 2) is
    /// read to its end and the plaintext period closes, where a guard that refused the
    /// list, or a loop that never ended, would fail the run. The period is open until the
    /// sync that seals everything.
    @Test func aMigrationListedInSeveralPagesIsReadThroughAndCloses() async throws {
        let a = try EncryptedDevice(user: user, server: server, pageSize: 2)
        for index in 1...5 { try a.device.saveBook("b\(index)", title: "Book \(index)") }
        #expect(await a.device.sync().outcome == .synced)
        #expect(try await a.enable("correct horse") == 5)
        #expect(try !a.encryption.status().plaintextClosed)
        let report = await a.device.sync()
        #expect(report.outcome == .synced)
        #expect(try a.encryption.status().plaintextClosed)
        for index in 1...5 {
            #expect(try await a.device.rawServerBook("b\(index)")["shelf_enc"] != nil)
        }
    }

    @Test func aJoinedDeviceMergesFieldByFieldThroughSealedRecords() async throws {
        let (a, b) = try await encryptedPair()
        try b.device.editBook("b1") { $0["finished"] = .bool(true) }
        try await b.join("correct horse")
        #expect(await b.device.sync().outcome == .synced)

        try a.device.editBook("b1") { $0["title"] = .string("Dune Messiah") }
        try b.device.editBook("b2") { $0["title"] = .string("Solaris (2nd ed.)") }
        #expect(await a.device.sync().outcome == .synced)
        #expect(await b.device.sync().outcome == .synced)
        #expect(await a.device.sync().outcome == .synced)

        for device in [a.device, b.device] {
            #expect(try device.title("b1") == "Dune Messiah")
            #expect(try device.bookFields("b1")?["finished"] == .bool(true))
            #expect(try device.title("b2") == "Solaris (2nd ed.)")
        }
        let raw = try await a.device.rawServerBook("b1")
        #expect(raw["title"] == nil && raw["shelf_enc"] != nil)
    }

    @Test func aWrongPassphraseJoinsNothingAndWritesNothing() async throws {
        let (_, b) = try await encryptedPair()
        await #expect(throws: EncryptionError.wrongPassphrase) { try await b.join("wrong horse") }
        #expect(try b.encryption.status().holdsKey == false)
        #expect(try b.device.store.read { try $0.encryptionState() } == .off)
    }

    @Test func anAlteredCiphertextIsRefusedAndTheLocalRecordKept() async throws {
        let (a, b) = try await encryptedPair()
        try await b.join("correct horse")
        #expect(await b.device.sync().outcome == .synced)

        var raw = try await a.device.rawServerBook("b1")
        guard case .object(var envelope)? = raw["shelf_enc"], let ciphertext = envelope["c"]?.stringValue else {
            Issue.record("no envelope: \(raw)")
            return
        }
        var bytes = try #require(Data(base64Encoded: ciphertext))
        bytes[bytes.count / 2] ^= 0x01
        envelope["c"] = .string(bytes.base64EncodedString())
        raw["shelf_enc"] = .object(envelope)
        try await a.device.writeRawServerBook("b1", raw)

        let report = await b.device.sync()
        #expect(report.collections["books"]?.refused == 1)
        #expect(try b.device.title("b1") == "Dune")
    }

    @Test func aCiphertextSwappedBetweenTwoRecordsIsRefused() async throws {
        let (a, b) = try await encryptedPair()
        try await b.join("correct horse")
        #expect(await b.device.sync().outcome == .synced)

        let first = try await a.device.rawServerBook("b1")
        let second = try await a.device.rawServerBook("b2")
        try await a.device.writeRawServerBook("b1", ["shelf_enc": try #require(second["shelf_enc"])])
        try await a.device.writeRawServerBook("b2", ["shelf_enc": try #require(first["shelf_enc"])])

        let report = await b.device.sync()
        #expect(report.collections["books"]?.refused == 2)
        #expect(try b.device.title("b1") == "Dune")
        #expect(try b.device.title("b2") == "Solaris")
    }

    @Test func aPlaintextRecordInAnEncryptedCollectionIsRefused() async throws {
        let (a, b) = try await encryptedPair()
        try await b.join("correct horse")
        #expect(await b.device.sync().outcome == .synced)

        try await a.device.writeRawServerBook("b9", ["title": .string("Planted"), "author_name": .string("Server"), "finished": .bool(false)])
        let report = await b.device.sync()
        #expect(report.outcome == .needsAttention)
        #expect(report.collections["books"]?.inTheClear == 1)
        #expect(try b.device.title("b9") == nil)
    }

    @Test func aKeyringReplacedByTheServerIsRefusedPutBackAndTheKeyHeldStaysInUse() async throws {
        let (a, b) = try await encryptedPair()
        // The server swaps in a keyring of its own: a key wrapped under a passphrase it
        // chose, a manifest authenticated under that key.
        let impostorKey = try DataKey.generate()
        let impostor = try WrappedKey.wrap(impostorKey, passphrase: try Passphrase("server's own"), parameters: EncryptedDevice.cheap)
        let forged = try KeyringRecord.make(
            version: 99, current: impostorKey.id, identity: impostorKey.id, plaintextClosed: false,
            wrapped: [impostorKey.id: impostor], states: [impostorKey.id: .current], keys: [impostorKey])
        try await ServerKeyringProbe.replace(a.device.client, with: forged.fields)

        await #expect(throws: EncryptionError.wrongPassphrase) { try await b.join("correct horse") }
        // Device a refuses it at its next sync and seals nothing under a keyring it cannot
        // judge; the reader puts back the keyring a verified.
        try a.device.editBook("b1") { $0["title"] = .string("Dune (kept)") }
        let report = await a.device.sync()
        #expect(report.outcome == .needsAttention)
        #expect(report.keyring?.contains("lists none of this device's keys") == true, "\(report.keyring ?? "")")
        #expect(try a.device.store.pendingCount() == 1)
        #expect(try await a.encryption.putBackKeyring())
        #expect(await a.device.sync().outcome == .synced)
        #expect(try a.encryption.status().keyID != impostorKey.id.rawValue)
        #expect(try await ServerKeyringProbe.fetch(a.device.client)["manifest"]?["current"] == .string(try #require(a.encryption.status().keyID)))
        // The reader's keyring is back: b joins with the reader's passphrase.
        try await b.join("correct horse")
        #expect(await b.device.sync().outcome == .synced)
        #expect(try b.device.title("b1") == "Dune (kept)")
    }

    @Test func aRotatedKeySealsEverythingAgainAndAJoinedDeviceCatchesUp() async throws {
        let (a, b) = try await encryptedPair()
        try await b.join("correct horse")
        #expect(await b.device.sync().outcome == .synced)
        let before = try #require(try a.encryption.status().keyID)

        #expect(try await a.encryption.rotate(passphrase: try Passphrase("correct horse")).queued == 2)
        #expect(await a.device.sync().outcome == .synced)
        let after = try #require(try a.encryption.status().keyID)
        #expect(after != before)

        try a.device.editBook("b2") { $0["finished"] = .bool(true) }
        #expect(await a.device.sync().outcome == .synced)
        // b holds only the old key until it joins again; then it catches up.
        _ = await b.device.sync()
        try await b.join("correct horse")
        #expect(await b.device.sync().outcome == .synced)
        #expect(try b.device.bookFields("b2")?["finished"] == .bool(true))
    }

    @Test func importedIdsAreKeyedSoTheyRevealNothingAndASecondImportAddsNothing() async throws {
        let (a, _) = try await encryptedPair()
        let csv = """
            Book Id,Title,Author,Exclusive Shelf,My Review
            4981,Slaughterhouse-Five,Kurt Vonnegut,read,So it goes.
            """
        let keyed = try #require(try a.encryption.importIDs())
        let plan = try LibraryImport.plan(Data(csv.utf8), format: .goodreads, file: "goodreads.csv").keyingIDs(keyed)
        let ids = plan.items.map(\.id)
        #expect(ids.count == 2 && ids.allSatisfy { !$0.contains("4981") && !$0.hasPrefix("gr-") })
        let note = try #require(plan.items.first { $0.collection == .notes })
        #expect(note.fields["book_id"] == .string(try #require(plan.items.first { $0.collection == .books }).id))

        let first = try LibraryImport.apply(plan, to: a.device.store, file: "goodreads.csv", dryRun: false)
        #expect(first.collections["books"]?.added == 1)
        // After a rotation the ids stay the same: the second import finds the first's records.
        _ = try await a.encryption.rotate(passphrase: try Passphrase("correct horse"))
        let again = try LibraryImport.plan(Data(csv.utf8), format: .goodreads, file: "goodreads.csv")
            .keyingIDs(try #require(try a.encryption.importIDs()))
        #expect(again.items.map(\.id) == ids)
        let second = try LibraryImport.apply(again, to: a.device.store, file: "goodreads.csv", dryRun: false)
        #expect(second.collections["books"]?.added == 0)
    }

    /// Ids made from an import's source (`gr-<Goodreads Book Id>`) tell the server which
    /// book the reader has: `enable` names those records by keyed ids, the old ids leave
    /// the server's live records as tombstones, and what names the book follows.
    @Test func enablingRenamesRecordsWhoseIdsRevealTheirSource() async throws {
        let a = try EncryptedDevice(user: user, server: server)
        let b = try EncryptedDevice(user: user, server: server)
        let csv = """
            Book Id,Title,Author,Exclusive Shelf,My Review
            4981,Slaughterhouse-Five,Kurt Vonnegut,read,So it goes.
            """
        let plan = try LibraryImport.plan(Data(csv.utf8), format: .goodreads, file: "goodreads.csv")
        _ = try LibraryImport.apply(plan, to: a.device.store, file: "goodreads.csv", dryRun: false)
        _ = try a.device.store.write { tx in
            try tx.saveLocal(.preferences, id: "reader", json: Data(#"{"id":"reader","favorite:gr-4981":true}"#.utf8))
        }
        #expect(await a.device.sync().outcome == .synced)
        #expect(await b.device.sync().outcome == .synced)
        #expect(try a.device.title("gr-4981") == "Slaughterhouse-Five")

        _ = try await a.enable("correct horse")
        #expect(try a.encryption.status().revealingIDs == 0)
        #expect(await a.device.sync().outcome == .synced)
        try await b.join("correct horse")
        #expect(await b.device.sync().outcome == .synced)

        for device in [a, b] {
            #expect(try device.device.title("gr-4981") == nil)
            let books = try device.device.store.read { try $0.rows(of: .books) }.filter { !$0.isDeleted }
            #expect(books.count == 1)
            let book = try #require(books.first)
            #expect(!book.id.contains("4981") && !RevealingIDs.reveals(book.id))
            let notes = try device.device.store.read { try $0.rows(of: .notes) }.filter { !$0.isDeleted }
            #expect(notes.count == 1)
            let note = try WireJSON.fields(try #require(notes.first).json)
            #expect(note["book_id"] == .string(book.id))
            let preferences = try WireJSON.fields(try #require(try device.device.store.record(.preferences, id: "reader")).json)
            #expect(preferences["favorite:\(book.id)"] == .bool(true))
            #expect(preferences["favorite:gr-4981"] == nil)
            #expect(try device.encryption.status().revealingIDs == 0)
        }
        // On the server the revealing ids are tombstones only: no live record keeps them.
        let live = try await KintoCollectionService(client: a.device.client, collection: .books).firstPage(ListQuery()).page?.records ?? []
        #expect(live.map(\.id).allSatisfy { !RevealingIDs.reveals($0) })
        #expect(live.count == 1)
    }

    @Test func aConflictOnSealedRecordsIsResolvedAndADeletionReachesTheOtherDevice() async throws {
        let (a, b) = try await encryptedPair()
        try await b.join("correct horse")
        #expect(await b.device.sync().outcome == .synced)

        // The same field on both sides: a per-field conflict, through sealed records.
        try a.device.editBook("b1") { $0["title"] = .string("Dune (A)") }
        try b.device.editBook("b1") { $0["title"] = .string("Dune (B)") }
        #expect(await a.device.sync().outcome == .synced)
        let clash = await b.device.sync()
        #expect(clash.outcome == .needsAttention)
        #expect(clash.collections["books"]?.conflicts == 1)
        try ConflictResolver(store: b.device.store).resolve(.books, id: "b1", keep: .local)
        #expect(await b.device.sync().outcome == .synced)
        #expect(await a.device.sync().outcome == .synced)
        #expect(try a.device.title("b1") == "Dune (B)")

        // A deletion: a tombstone stays a tombstone, and the other device drops the record.
        try a.device.deleteBook("b2")
        #expect(await a.device.sync().outcome == .synced)
        #expect(await b.device.sync().outcome == .synced)
        #expect(try b.device.title("b2") == nil)
    }

    @Test func aServerThatForgotTheCollectionGetsItBackSealed() async throws {
        let (a, b) = try await encryptedPair()
        try await b.join("correct horse")
        #expect(await b.device.sync().outcome == .synced)

        _ = try await a.device.client.send(.delete, "/buckets/default/collections/books")
        #expect(await a.device.sync().outcome == .synced)
        for id in ["b1", "b2"] {
            #expect(Set(try await a.device.rawServerBook(id).keys) == ["id", "last_modified", "shelf_enc"])
        }
        #expect(await b.device.sync().outcome == .synced)
        #expect(try b.device.title("b2") == "Solaris")
    }

    @Test func changingThePassphraseSealsNothingAgain() async throws {
        let (a, b) = try await encryptedPair()
        let sealedBefore = try await a.device.rawServerBook("b1")
        try await a.encryption.changePassphrase(
            from: try Passphrase("correct horse"), to: try Passphrase("battery staple"), parameters: EncryptedDevice.cheap)
        #expect(try await a.device.rawServerBook("b1") == sealedBefore)
        await #expect(throws: EncryptionError.wrongPassphrase) { try await b.join("correct horse") }
        try await b.join("battery staple")
        #expect(await b.device.sync().outcome == .synced)
        #expect(try b.device.title("b1") == "Dune")
    }
}

// MARK: - The keyring, raw

/// The server's keyring record as bytes, for tests that play a hostile server.
enum ServerKeyringProbe {
    static let path = try! KintoCollectionPath(bucket: "default", collection: "shelf-keys")  // NB: literals of Kinto's alphabet

    static func fetch(_ client: APIClient) async throws -> [String: JSONValue] {
        try await KintoCollectionService(client: client, path: path).record(id: "keyring").fields()
    }

    static func replace(_ client: APIClient, with fields: [String: JSONValue]) async throws {
        var body = fields
        ServerOwnedFields.removeAll(from: &body)
        _ = try await client.write(try .update(in: path, id: "keyring", data: try WireJSON.data(body), ifMatch: nil))
    }
}
