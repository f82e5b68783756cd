import Domain
import Foundation
import Services
import Storage
import Sync
import TestSupport
import Testing

/// The operator who skips Kinto's API and writes straight into its PostgreSQL database, on
/// the production shape (PostgreSQL, 4 gunicorn workers). What only the database allows:
/// a row written back with its old stamp, so that no `_since` pull ever lists it, and a
/// row removed with no tombstone. Reconciliation is what meets them, and the integrity
/// rules judge what it finds as they judge a pulled page.
@Suite("A hostile operator writing straight into PostgreSQL (real Kinto)")
struct DatabaseOperatorTests {
    let server: KintoServer
    let user: TestUser
    let database: String

    init() async throws {
        server = try KintoServer.sharedProduction()
        user = try await server.newUser(prefix: "dbop")
        database = try #require(server.postgresqlURL)
    }

    static let passphrase = "correct horse"

    /// Two devices of an encrypted account, both joined and synced, holding b1 "Dune" and
    /// b2 "Solaris"; the plaintext period is closed.
    private func joinedPair() async throws -> (EncryptedDevice, EncryptedDevice) {
        let a = try EncryptedDevice(user: user, server: server)
        let b = try EncryptedDevice(user: user, server: server)
        try a.device.saveBook("b1", title: "Dune")
        try a.device.saveBook("b2", title: "Solaris")
        #expect(await synced(a))
        #expect(try await a.enable(Self.passphrase) == 2)
        #expect(await synced(a))
        try await b.join(Self.passphrase)
        #expect(await synced(b))
        #expect(try a.encryption.status().plaintextClosed)
        return (a, b)
    }

    /// A sync that ends synced, tried up to three times: the set-up shares the production
    /// server (four workers over PostgreSQL) with every other suite, and its devices make
    /// one attempt a run, so a request stalled under that load is tried again here rather
    /// than failing what the test is not about.
    private func synced(_ device: EncryptedDevice) async -> Bool {
        for _ in 1...3 {
            if await device.device.sync().outcome == .synced { return true }
        }
        return false
    }

    // MARK: - Attacks

    /// An older sealed version written back into the row under a stamp from an hour before,
    /// as a version that old would carry, behind a newer record: no pull lists it (it lies
    /// behind the commit window a pull reaches back over, and the collection's newest stamp
    /// did not move), a device's reconciliation finds it, refuses it and puts the newer
    /// version back.
    @Test func anOlderVersionHiddenBehindTheWindowIsFoundByReconciliationRefusedAndPutBack() async throws {
        let (a, b, old) = try await retitledPair()
        // b2 changes after b1: the collection's newest stamp is b2's, which the operator leaves alone.
        try a.device.editBook("b2") { $0["title"] = .string("Solaris (1961)") }
        #expect(await synced(a))
        #expect(await synced(b))
        // (b's first reconciliation, due after its first sync, is behind it: its next
        // ordinary run pulls only.)
        #expect(await b.device.sync { $0.reconcilesNow = true }.outcome == .synced)

        // WHEN the operator puts b1's older row back an hour into the past
        try await restore(old, of: "b1", in: a)

        // THEN a pull does not see it, and the device's reconciliation refuses it
        let pulled = await b.device.sync()
        #expect(pulled.outcome == .synced, "\(pulled.message)")
        #expect(pulled.collections["books"]?.reconciliation == nil, "an ordinary run does not reconcile again so soon")
        let reconciled = await b.device.sync { $0.reconcilesNow = true }
        #expect(reconciled.collections["books"]?.rolledBack == 1, "\(reconciled.message)")
        #expect(try b.device.title("b1") == "Dune (1965)")
        try await newerVersionIsBack(a, b)
    }

    /// The same, with b1 the collection's newest record: its stamp going back takes the
    /// collection's newest stamp below what the device had seen, so an ordinary run sees
    /// a server that went back, lists the collection again and refuses the older version.
    @Test func anOlderVersionRestoredAsTheNewestRecordIsSeenAsAServerThatWentBack() async throws {
        let (a, b, old) = try await retitledPair()

        try await restore(old, of: "b1", in: a)

        let pulled = await b.device.sync()
        #expect(pulled.collections["books"]?.serverForgot != nil, "\(pulled.message)")
        #expect(pulled.collections["books"]?.rolledBack == 1, "\(pulled.message)")
        #expect(try b.device.title("b1") == "Dune (1965)")
        try await newerVersionIsBack(a, b)
    }

    /// A pair whose b1 the reader retitled "Dune (1965)" on `a`, with the server's row of
    /// its first sealed version kept for the operator.
    private func retitledPair() async throws -> (EncryptedDevice, EncryptedDevice, Row) {
        let (a, b) = try await joinedPair()
        let old = try await row(of: "b1", device: a)
        try a.device.editBook("b1") { $0["title"] = .string("Dune (1965)") }
        #expect(await synced(a))
        #expect(await synced(b))
        #expect(try b.device.title("b1") == "Dune (1965)")
        return (a, b, old)
    }

    /// The operator's write: the older row back, an hour into the past, behind Kinto's
    /// trigger (which would otherwise stamp it now and bump the collection's timestamp).
    private func restore(_ old: Row, of id: String, in device: EncryptedDevice) async throws {
        let hidden = old.stamp - 3_600_000
        let filter = try await rowFilter(id, device: device)
        try psql("""
            SET session_replication_role = replica;
            UPDATE objects SET data = '\(old.data.replacingOccurrences(of: "'", with: "''"))'::jsonb,
                last_modified = from_epoch(\(hidden))
            WHERE \(filter);
            """)
        #expect(try await row(of: id, device: device) == (old.data, hidden))
    }

    /// b's version is back on the server: a new device takes it, and `a` keeps it.
    private func newerVersionIsBack(_ a: EncryptedDevice, _ b: EncryptedDevice) async throws {
        _ = await b.device.sync()
        let c = try EncryptedDevice(user: user, server: server)
        try await c.join(Self.passphrase)
        #expect(await c.device.sync().outcome == .synced)
        #expect(try c.device.title("b1") == "Dune (1965)")
        _ = await a.device.sync()
        #expect(try a.device.title("b1") == "Dune (1965)")
    }

    /// A row removed outright, with no tombstone: no pull says anything; reconciliation
    /// finds the book missing, the device keeps it and it goes back up, sealed.
    @Test func aRowRemovedWithoutATombstoneIsKeptAndGoesBackUp() async throws {
        let (a, b) = try await joinedPair()

        // WHEN the operator deletes b2's row
        let filter = try await rowFilter("b2", device: a)
        try psql("DELETE FROM objects WHERE \(filter);")
        #expect(try psql("SELECT count(*) FROM objects WHERE \(filter);") == "0")

        // THEN the device's reconciliation keeps the book and puts it back on the server
        let reconciled = await b.device.sync { $0.reconcilesNow = true }
        #expect([.synced, .needsAttention].contains(reconciled.outcome), "\(reconciled.message)")
        _ = await b.device.sync()
        #expect(try b.device.title("b2") == "Solaris")
        #expect(try await b.device.rawServerBook("b2")["shelf_enc"] != nil)
        #expect(await a.device.sync().outcome == .synced)
        #expect(try a.device.title("b2") == "Solaris")
    }

    // MARK: - The database

    /// The SQL that names one book's row in this user's bucket (its id from `GET /v1/`).
    private func rowFilter(_ id: String, device: EncryptedDevice) async throws -> String {
        let info = try await KintoServerInfoService(client: device.device.client).fetch()
        let bucket = try #require(info.capabilities.userBucket)
        return "resource_name = 'record' AND id = '\(id)' AND parent_id = '/buckets/\(bucket)/collections/books'"
    }

    /// A book's row: its data as JSON text and its stamp (ms since 1970).
    typealias Row = (data: String, stamp: Int64)

    private func row(of id: String, device: EncryptedDevice) async throws -> Row {
        let filter = try await rowFilter(id, device: device)
        let data = try psql("SELECT data::text FROM objects WHERE \(filter);")
        let stamp = try psql("SELECT as_epoch(last_modified) FROM objects WHERE \(filter);")
        guard !data.isEmpty, let value = Int64(stamp) else { throw DatabaseError(stderr: "no row for \(id)") }
        return (data, value)
    }

    @discardableResult
    private func psql(_ sql: String) throws -> String {
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/psql"), ["--no-psqlrc", "-X", "-q", "-At", "--dbname", database, "-v", "ON_ERROR_STOP=1", "-c", sql],
            environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw DatabaseError(stderr: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct DatabaseError: Error { let stderr: String }
}
