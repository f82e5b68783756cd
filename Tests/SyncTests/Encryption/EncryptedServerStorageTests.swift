import Domain
import Foundation
import Storage
import Sync
import TestSupport
import Testing

/// What Kinto's own tables hold once an encrypted account synced: on the production
/// shape (PostgreSQL, 4 gunicorn workers), a dump of the database after a sync holds
/// none of the reader's text.
@Suite("Encrypted accounts: the server's storage (PostgreSQL)")
struct EncryptedServerStorageTests {
    @Test func theServersTablesHoldNoTitleAuthorOrNoteText() async throws {
        let server = try KintoServer.sharedProduction()
        let url = try #require(server.postgresqlURL)
        let user = try await server.newUser(prefix: "dump")
        let device = try EncryptedDevice(user: user, server: server)
        let secrets = ["Zanzibar Lighthouse Chronicle", "Philomena Quorrington", "a marginal note about xylophones"]
        try device.device.saveBook("b1", title: secrets[0], author: secrets[1])
        let note = #"{"id":"n1","book_id":"b1","title":"On page 3","body":"\#(secrets[2])"}"#
        _ = try device.device.store.write { tx in try tx.saveLocal(.notes, id: "n1", json: Data(note.utf8)) }
        // In the clear first, as an account that turns encryption on with data does.
        #expect(await device.device.sync().outcome == .synced)
        #expect(try dump(url).contains(secrets[0]))

        #expect(try await device.enable("correct horse") == 2)
        #expect(await device.device.sync().outcome == .synced)

        // NB: Kinto keeps no history in this configuration: a record's row holds its
        // latest version only, so the earlier plaintext is gone from the table.
        let tables = try dump(url)
        for secret in secrets { #expect(!tables.contains(secret), "the server's tables hold '\(secret)'") }
        #expect(tables.contains("shelf_enc"))
    }

    /// Every row of Kinto's database, as `pg_dump --data-only` writes them.
    private func dump(_ url: String) throws -> String {
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/pg_dump"), ["--data-only", "--dbname", url],
            environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw DumpError(stderr: result.stderr) }
        return result.stdout
    }

    struct DumpError: Error { let stderr: String }
}
