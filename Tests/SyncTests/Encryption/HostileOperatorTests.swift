import Domain
import Encryption
import Foundation
import Records
import Services
import Storage
import Sync
import TestSupport
import Testing

/// The server's operator, or whoever broke into the server, against an encrypted account:
/// it writes with plain HTTP to a real Kinto (the account's own credentials, which Kinto's
/// operator can use as well) — forging, replaying, deleting, rolling the keyring back — and
/// each test asserts what every device lists and reports. The operator never holds a data
/// key, except in the one test where a retired key leaked.
@Suite("A hostile server operator (real Kinto)")
struct HostileOperatorTests {
    let server: KintoServer
    let user: TestUser

    init() async throws {
        server = try KintoServer.shared()
        user = try await server.newUser(prefix: "hostile")
    }

    static let passphrase = "correct horse"

    /// Two devices of an encrypted account, both joined and synced, holding b1 "Dune" and
    /// b2 "Solaris"; the plaintext period is closed.
    private func joinedPair() async throws -> (EncryptedDevice, EncryptedDevice) {
        let a = try EncryptedDevice(user: user, server: server)
        let b = try EncryptedDevice(user: user, server: server)
        try a.device.saveBook("b1", title: "Dune")
        try a.device.saveBook("b2", title: "Solaris", author: "Stanisław Lem")
        #expect(await a.device.sync().outcome == .synced)
        #expect(try await a.enable(Self.passphrase) == 2)
        #expect(await a.device.sync().outcome == .synced)
        try await b.join(Self.passphrase)
        #expect(await b.device.sync().outcome == .synced)
        #expect(try a.encryption.status().plaintextClosed)
        return (a, b)
    }

    /// The joined pair after a retitled b1 ("Dune (1965)") and both synced, with b's edit
    /// of b1 (finished) waiting; and b1's sealed version from before the retitle, which the
    /// operator kept to put back.
    private func retitledWithAnEditWaiting() async throws -> (EncryptedDevice, EncryptedDevice, old: [String: JSONValue]) {
        let (a, b) = try await joinedPair()
        let old = try await a.device.rawServerBook("b1")
        try a.device.editBook("b1") { $0["title"] = .string("Dune (1965)") }
        #expect(await a.device.sync().outcome == .synced)
        #expect(await b.device.sync().outcome == .synced)
        try b.device.editBook("b1") { $0["finished"] = .bool(true) }
        return (a, b, old)
    }

    /// A book as the operator writes it: in the clear.
    static func plainBook(_ title: String) -> [String: JSONValue] {
        ["title": .string(title), "author_name": .string("the operator"), "finished": .bool(false)]
    }

    /// The operator's writes: Kinto's API, no key.
    private func operatorPut(_ device: EncryptedDevice, _ id: String, _ fields: [String: JSONValue]) async throws {
        try await device.device.writeRawServerBook(id, fields)
    }

    // MARK: - Forging

    /// The issue's first row: plaintext written over a sealed book and a new plaintext
    /// book, then a device joins. Nobody seals them again, no device shows them, and the
    /// book's sealed version goes back over the forged one.
    @Test func forgedPlaintextReachesNoDeviceAndNobodySealsItAgain() async throws {
        let (a, b) = try await joinedPair()
        try await operatorPut(a, "b1", Self.plainBook("FORGED"))
        try await operatorPut(a, "b9", Self.plainBook("INJECTED"))

        let c = try EncryptedDevice(user: user, server: server)
        try await c.join(Self.passphrase)
        let joined = await c.device.sync()
        #expect(joined.outcome == .needsAttention)
        #expect(joined.collections["books"]?.inTheClear == 2)
        for device in [a, b, c] {
            _ = await device.device.sync()
            #expect(try device.device.title("b1") == "Dune")
            #expect(try device.device.title("b9") == nil)
        }
        // b1 is sealed again on the server (a device put its version back); b9 stays as
        // the operator wrote it, refused by every device.
        #expect(try await a.device.rawServerBook("b1")["shelf_enc"] != nil)
        #expect(try await a.device.rawServerBook("b9")["title"] == .string("INJECTED"))
        #expect(await c.device.sync().collections["books"]?.inTheClear ?? 0 <= 1)
    }

    // MARK: - Rollback

    /// The issue's second row: an older sealed version put back after the reader retitled.
    @Test func anOlderSealedVersionIsRefusedAndTheNewerGoesBack() async throws {
        let (a, b) = try await joinedPair()
        let old = try await a.device.rawServerBook("b1")
        try a.device.editBook("b1") { $0["title"] = .string("Dune (1965)") }
        #expect(await a.device.sync().outcome == .synced)
        #expect(await b.device.sync().outcome == .synced)
        let newer = try await a.device.rawServerBook("b1")

        try await operatorPut(a, "b1", old)
        let refused = await b.device.sync()
        #expect(refused.outcome == .needsAttention)
        #expect(refused.collections["books"]?.rolledBack == 1)
        #expect(refused.message.contains("older version"))
        #expect(try b.device.title("b1") == "Dune (1965)")
        // b's version went back: the server holds a newer number than the replay, and a
        // device that syncs now takes it without a refusal.
        let back = try await a.device.rawServerBook("b1")
        #expect((back["shelf_enc"]?["seq"]?.intValue ?? 0) > (old["shelf_enc"]?["seq"]?.intValue ?? 0))
        // It goes back as the version it was — its number, not a new one — so no device
        // takes the put-back for a new write.
        #expect(back["shelf_enc"]?["seq"] == newer["shelf_enc"]?["seq"])
        let after = await a.device.sync()
        #expect(after.outcome == .synced)
        #expect(try a.device.title("b1") == "Dune (1965)")
    }

    /// The issue's third row: an older sealed version of a book the reader removed.
    @Test func aRemovedBookPutBackIsRefusedAndRemovedAgain() async throws {
        let (a, b) = try await joinedPair()
        let old = try await a.device.rawServerBook("b2")
        try a.device.deleteBook("b2")
        #expect(await a.device.sync().outcome == .synced)
        #expect(await b.device.sync().outcome == .synced)
        #expect(try b.device.title("b2") == nil)
        // The reader's deletion is sealed: the server holds a record marked deleted, not a tombstone.
        #expect(try await a.device.rawServerBook("b2")["shelf_enc"]?["del"] == .bool(true))

        try await operatorPut(a, "b2", old)
        let refused = await b.device.sync()
        #expect(refused.collections["books"]?.rolledBack == 1)
        #expect(try b.device.title("b2") == nil)
        _ = await a.device.sync()
        #expect(try a.device.title("b2") == nil)
        #expect(try await a.device.rawServerBook("b2")["shelf_enc"]?["del"] == .bool(true))
        // A third device, new, takes the deletion put back, not the replay.
        let c = try EncryptedDevice(user: user, server: server)
        try await c.join(Self.passphrase)
        #expect(await c.device.sync().outcome == .synced)
        #expect(try c.device.title("b2") == nil)
        #expect(try c.device.title("b1") == "Dune")
    }

    /// A push meets the replay as a 412: the change is aimed at the server's version and
    /// sent again, not merged with the old one.
    @Test func anEditThatMeetsAReplayIsSentAgainOverIt() async throws {
        let (a, b, old) = try await retitledWithAnEditWaiting()
        try await operatorPut(a, "b1", old)
        // b pulls first (refusing the replay, aiming its waiting edit at it), then pushes.
        _ = await b.device.sync()
        _ = await b.device.sync()
        #expect(await a.device.sync().outcome == .synced)
        for device in [a, b] {
            #expect(try device.device.title("b1") == "Dune (1965)")
            #expect(try device.device.bookFields("b1")?["finished"] == .bool(true))
        }
    }

    // MARK: - Deletion

    /// The issue's last row: every book deleted with one plural DELETE.
    @Test func deletingEveryBookEmptiesNoDeviceAndOneCommandPutsThemBack() async throws {
        let (a, b) = try await joinedPair()
        _ = try await a.device.client.send(.delete, "/buckets/default/collections/books/records")

        for device in [a, b] {
            let report = await device.device.sync()
            #expect(report.outcome == .needsAttention)
            #expect(report.message.contains("deleted 2 records without you"), "\(report.message)")
            #expect(try device.device.title("b1") == "Dune")
            #expect(try device.device.title("b2") == "Solaris")
            #expect(try device.encryption.status().deletedByServer == 2)
        }
        #expect(try a.encryption.putBack() == 2)
        #expect(await a.device.sync().outcome == .synced)
        for id in ["b1", "b2"] { #expect(try await a.device.rawServerBook(id)["shelf_enc"] != nil) }
        // b learns from the sealed versions put back that nothing is missing any more.
        #expect(await b.device.sync().outcome == .synced)
        #expect(try b.encryption.status().deletedByServer == 0)
        let c = try EncryptedDevice(user: user, server: server)
        try await c.join(Self.passphrase)
        #expect(await c.device.sync().outcome == .synced)
        #expect(try c.device.title("b2") == "Solaris")
    }

    /// An edit of a record the server deleted alone goes back up as the record.
    @Test func anEditOfARecordTheServerDeletedGoesBackUp() async throws {
        let (a, b) = try await joinedPair()
        _ = try await a.device.client.send(.delete, "/buckets/default/collections/books/records/b1")
        try b.device.editBook("b1") { $0["finished"] = .bool(true) }
        _ = await b.device.sync()
        _ = await b.device.sync()
        #expect(try await a.device.rawServerBook("b1")["shelf_enc"] != nil)
        _ = await a.device.sync()
        #expect(try a.device.bookFields("b1")?["finished"] == .bool(true))
    }

    /// The operator deletes books one device has just edited while the other device's edit
    /// of them waits. The waiting edits go back up as creates, numbered as the first
    /// device's versions are: two versions of each number, settled by the greater
    /// revision on every device. Whichever wins a book, the other device's edit was
    /// acknowledged, so it is merged onto the winner (`OverwrittenWrites`), never lost.
    /// Six books, so both orders of the two revisions are met (all six the same way: 1 in 32).
    @Test func anEditSentBackUpOverTheOperatorsDeletionIsMergedWhicheverVersionWins() async throws {
        let a = try EncryptedDevice(user: user, server: server)
        let b = try EncryptedDevice(user: user, server: server)
        let ids = (1...6).map { "b\($0)" }
        for id in ids { try a.device.saveBook(id, title: "Title \(id)", author: "Author \(id)") }
        #expect(await a.device.sync().outcome == .synced)
        #expect(try await a.enable(Self.passphrase) == ids.count)
        #expect(await a.device.sync().outcome == .synced)
        try await b.join(Self.passphrase)
        #expect(await b.device.sync().outcome == .synced)

        for id in ids { try b.device.editBook(id) { $0["title"] = .string("New title \(id)") } }
        #expect(await b.device.sync().outcome == .synced)
        for id in ids { try a.device.editBook(id) { $0["author_name"] = .string("New author \(id)") } }
        _ = try await a.device.client.send(.delete, "/buckets/default/collections/books/records")

        // Each device syncs in turn until neither has anything left to send.
        for _ in 0..<6 {
            _ = await a.device.sync()
            _ = await b.device.sync()
        }
        for device in [a, b] {
            #expect(try device.device.store.pendingCount() == 0)
            for id in ids {
                let fields = try device.device.bookFields(id)
                #expect(fields?["title"] == .string("New title \(id)"), "\(id): \(String(describing: fields))")
                #expect(fields?["author_name"] == .string("New author \(id)"), "\(id): \(String(describing: fields))")
            }
        }
        for id in ids {
            let server = try await a.device.rawServerBook(id)
            #expect(server["shelf_enc"] != nil, "\(id) is sealed on the server")
        }
    }

    /// The operator deletes a book while the reader's edit of it waits on one device; that
    /// device sends the edit back up as a create, and before it goes the reader removes
    /// the book there. The other device puts the book back, as it was told to. The reader's
    /// removal wins everywhere: the book is gone on both devices and sealed as deleted on
    /// the server.
    @Test func aRemovalOfAnEditSentBackUpOverTheOperatorsDeletionOutlivesAPutBack() async throws {
        let (a, b) = try await joinedPair()
        try b.device.editBook("b1") { $0["finished"] = .bool(true) }
        _ = try await a.device.client.send(.delete, "/buckets/default/collections/books/records/b1")
        _ = await b.device.sync()
        try b.device.deleteBook("b1")
        #expect(await a.device.sync().outcome == .needsAttention)
        #expect(try a.encryption.putBack() == 1)
        for _ in 0..<4 {
            _ = await a.device.sync()
            _ = await b.device.sync()
        }
        for device in [a, b] {
            #expect(try device.device.title("b1") == nil, "the reader removed b1")
            #expect(try device.device.title("b2") == "Solaris")
            #expect(try device.device.store.pendingCount() == 0)
        }
        #expect(try await rawBook(a, "b1")?["shelf_enc"]?["del"] == .bool(true), "b1 is sealed as deleted on the server")
    }

    /// The reader's edit of a book went out and its answer never came; the reader then
    /// removes the book, and the operator deletes it on the server. The edit, sent again,
    /// finds nothing: the reader's removal is not settled by the operator's tombstone but
    /// goes up sealed over it, so the other device removes the book too instead of being
    /// told to put it back.
    @Test func aRemovalWaitingBehindAnEditInFlightGoesUpSealedOverTheOperatorsDeletion() async throws {
        let (a, b) = try await joinedPair()
        try b.device.editBook("b1") { $0["finished"] = .bool(true) }
        let json = try #require(try b.device.store.record(.books, id: "b1")).json
        _ = try b.device.store.write { tx in
            let entry = try #require(try tx.outboxEntry(.books, id: "b1"))
            return try #require(try SyncRules(tx).markSent(entry, body: try PushBody.of(json, collection: .books, id: "b1"), numbered: true))
        }
        try b.device.deleteBook("b1")
        _ = try await a.device.client.send(.delete, "/buckets/default/collections/books/records/b1")

        for _ in 0..<3 { _ = await b.device.sync() }
        #expect(try b.device.title("b1") == nil)
        #expect(try b.device.store.pendingCount() == 0)
        #expect(try await rawBook(a, "b1")?["shelf_enc"]?["del"] == .bool(true), "the reader's removal is sealed on the server")
        let report = await a.device.sync()
        #expect(report.outcome == .synced, "\(report.message)")
        #expect(try a.device.title("b1") == nil, "the other device takes the reader's removal")
        #expect(try a.encryption.status().deletedByServer == 0)
        #expect(try a.device.title("b2") == "Solaris")
    }

    /// The operator deletes a book while an edit of it waits, and once that edit is queued to
    /// go back up as a create, puts an older sealed version back over the tombstone. The
    /// create meets that version, which the device refuses: the edit is aimed at it and
    /// goes up over it, instead of meeting it again at every run.
    @Test func anEditSentBackUpAsACreateGoesOverAnOlderVersionPutBackInItsWay() async throws {
        let (a, b, old) = try await retitledWithAnEditWaiting()
        _ = try await a.device.client.send(.delete, "/buckets/default/collections/books/records/b1")
        _ = await b.device.sync()
        try await operatorPut(a, "b1", old)

        for _ in 0..<3 { _ = await b.device.sync() }
        #expect(try b.device.store.pendingCount() == 0, "the edit went up")
        _ = await a.device.sync()
        for device in [a, b] {
            #expect(try device.device.title("b1") == "Dune (1965)")
            #expect(try device.device.bookFields("b1")?["finished"] == .bool(true))
        }
    }

    /// The same, with the reader's removal waiting behind that create: the removal goes up
    /// over the older version, sealed, and the other device takes it.
    @Test func aRemovalBehindACreateGoesOverAnOlderVersionPutBackInItsWay() async throws {
        let (a, b, old) = try await retitledWithAnEditWaiting()
        _ = try await a.device.client.send(.delete, "/buckets/default/collections/books/records/b1")
        _ = await b.device.sync()
        try b.device.deleteBook("b1")
        try await operatorPut(a, "b1", old)

        for _ in 0..<3 { _ = await b.device.sync() }
        #expect(try b.device.store.pendingCount() == 0, "the removal went up")
        #expect(try await rawBook(a, "b1")?["shelf_enc"]?["del"] == .bool(true), "sealed as deleted on the server")
        _ = await a.device.sync()
        for device in [a, b] {
            #expect(try device.device.title("b1") == nil, "the reader removed b1")
            #expect(try device.device.title("b2") == "Solaris")
        }
        #expect(try a.encryption.status().deletedByServer == 0)
    }

    // MARK: - The keyring

    /// The issue's fourth row: the keyring from before a rotation put back. Devices that
    /// saw the newer one refuse it and put the newer back; a device that joins while the
    /// old one is up finds records under a key its keyring lacks, says so, and seals
    /// nothing.
    @Test func anOlderKeyringIsRefusedPutBackAndANewDeviceNeverSealsUnderTheRetiredKey() async throws {
        let (a, b) = try await joinedPair()
        let before = try await ServerKeyringProbe.fetch(a.device.client)
        #expect(try await a.encryption.rotate(passphrase: try Passphrase(Self.passphrase)).queued == 2)
        #expect(await a.device.sync().outcome == .synced)
        let rotated = try await ServerKeyringProbe.fetch(a.device.client)
        #expect(rotated["manifest"]?["keys"]?.objectValue?.values.contains { $0["state"] == .string("retired") } == true)

        try await ServerKeyringProbe.replace(a.device.client, with: before)
        let c = try EncryptedDevice(user: user, server: server)
        try await c.join(Self.passphrase)
        try c.device.saveBook("c1", title: "Written on the new device")
        let held = await c.device.sync()
        #expect(held.outcome == .needsAttention)
        #expect(held.message.contains("does not list"), "\(held.message)")
        #expect(try c.device.title("b1") == nil)
        #expect(try await rawBook(a, "c1") == nil)

        // a saw the rotation: it refuses the old keyring and puts the newer back.
        let noticed = await a.device.sync()
        #expect(noticed.outcome == .needsAttention)
        #expect(noticed.keyring?.contains("older than version") == true, "\(noticed.keyring ?? "")")
        #expect(try await ServerKeyringProbe.fetch(a.device.client)["manifest"] == rotated["manifest"])
        // b is told another device rotated; c joins again and catches up.
        _ = await b.device.sync()
        try await b.join(Self.passphrase)
        #expect(await b.device.sync().outcome == .synced)
        try await c.join(Self.passphrase)
        #expect(await c.device.sync().outcome == .synced)
        #expect(try c.device.title("b1") == "Dune")
        #expect(try await rawBook(a, "c1")?["shelf_enc"]?["kid"] == rotated["manifest"]?["current"])
    }

    /// A keyring whose manifest the operator edited (the plaintext period opened again) does
    /// not verify: refused, and the verified one put back.
    @Test func anEditedKeyringIsRefusedAndPutBack() async throws {
        let (a, _) = try await joinedPair()
        var keyring = try await ServerKeyringProbe.fetch(a.device.client)
        var manifest = try #require(keyring["manifest"]?.objectValue)
        manifest["plaintext"] = .string("open")
        keyring["manifest"] = .object(manifest)
        try await ServerKeyringProbe.replace(a.device.client, with: keyring)
        try await operatorPut(a, "b9", Self.plainBook("INJECTED"))

        let report = await a.device.sync()
        #expect(report.outcome == .needsAttention)
        #expect(report.keyring?.contains("put back") == true, "\(report.keyring ?? "")")
        #expect(try a.device.title("b9") == nil)
        #expect(try await ServerKeyringProbe.fetch(a.device.client)["manifest"]?["plaintext"] == .string("closed"))
    }

    @Test func aDeletedKeyringIsPutBack() async throws {
        let (a, b) = try await joinedPair()
        _ = try await a.device.client.send(.delete, "/buckets/default/collections/shelf-keys/records/keyring")
        let report = await b.device.sync()
        #expect(report.outcome == .needsAttention)
        #expect(report.keyring?.contains("no keyring") == true, "\(report.keyring ?? "")")
        let c = try EncryptedDevice(user: user, server: server)
        try await c.join(Self.passphrase)
        #expect(await c.device.sync().outcome == .synced)
        #expect(try c.device.title("b1") == "Dune")
    }

    /// One extra wrapped key that does not open is reported as such, not as a wrong
    /// passphrase; a damaged entry of the current key is damage.
    @Test func anExtraOrDamagedKeyringEntryIsReportedAsSuch() async throws {
        let (a, b) = try await joinedPair()
        var keyring = try await ServerKeyringProbe.fetch(a.device.client)
        let stranger = try DataKey.generate()
        let extra = try WrappedKey.wrap(stranger, passphrase: try Passphrase("the operator's"), parameters: EncryptedDevice.cheap)
        var keys = try #require(keyring["keys"]?.objectValue)
        keys[stranger.id.rawValue] = .object(extra.fields)
        keyring["keys"] = .object(keys)
        try await ServerKeyringProbe.replace(a.device.client, with: keyring)
        #expect(try await b.join(Self.passphrase) == [.unlisted(stranger.id)])

        let current = try #require(keyring["manifest"]?["current"]?.stringValue)
        keys[current] = .object(try WrappedKey.wrap(stranger, passphrase: try Passphrase(Self.passphrase), parameters: EncryptedDevice.cheap).fields)
        keyring["keys"] = .object(keys)
        try await ServerKeyringProbe.replace(a.device.client, with: keyring)
        await #expect(throws: EncryptionError.self) { try await b.join(Self.passphrase) }
        do {
            _ = try await b.join(Self.passphrase)
        } catch let error as EncryptionError {
            #expect(error != .wrongPassphrase)
            guard case .keyringDamaged = error else { Issue.record("\(error)"); return }
        }
    }

    /// Once a rotation has sealed everything again, the old key is retired: a new version
    /// sealed under it — here by someone who holds it, as a thief of an old key would — is
    /// refused, though the key still opens history.
    @Test func aNewVersionUnderARetiredKeyIsRefused() async throws {
        let (a, b) = try await joinedPair()
        let oldKeys = try #require(try LocalKeyStore(path: b.device.engine.options.keyFile?.path ?? "").load())
        _ = try await a.encryption.rotate(passphrase: try Passphrase(Self.passphrase))
        #expect(await a.device.sync().outcome == .synced)
        let held = try #require(try a.device.bookFields("b1"))
        let sequence = try #require(held["_shelf_seq"]?.intValue)

        var forged = held
        forged["title"] = .string("Sealed with a stolen, retired key")
        let sealed = try RecordSealer(keyring: oldKeys, bucket: "default").seal(forged, in: "books", sequence: Int64(sequence + 1))
        try await operatorPut(a, "b1", sealed)
        let report = await a.device.sync()
        #expect(report.collections["books"]?.rolledBack == 1)
        #expect(try a.device.title("b1") == "Dune")
    }

    private func rawBook(_ device: EncryptedDevice, _ id: String) async throws -> [String: JSONValue]? {
        do {
            return try await device.device.rawServerBook(id)
        } catch APIError.notFound {
            return nil
        }
    }
}
