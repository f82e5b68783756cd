import Domain
import Foundation
import RecordDTOs
import Records
import Services
import Testing
import TestSupport

/// The server shape Kinto's docs advise for production — several gunicorn worker
/// processes over one PostgreSQL database, the cache shared in PostgreSQL — serves what
/// Shelf asks of it (`KintoServer.sharedProduction()`).
@Suite("Kinto under gunicorn, several workers on PostgreSQL (real server)")
struct KintoProductionServerTests {
    @Test func severalWorkerProcessesAnswerASignUpAndABatchWrite() async throws {
        try #require(
            FileManager.default.fileExists(atPath: "/usr/lib/postgresql"),
            "PostgreSQL's server is installed by 'make setup'")
        let kinto = try KintoServer.sharedProduction()

        // Gunicorn's master runs its workers: the supervisor waited for them all, so
        // poll only for a worker being replaced meanwhile (bounded).
        let deadline = ContinuousClock.now + .seconds(5)
        var workers = kinto.workerProcessIDs()
        while workers.count != KintoServer.productionWorkers && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            workers = kinto.workerProcessIDs()
        }
        #expect(workers.count == KintoServer.productionWorkers, "workers: \(workers)")

        // A sign-up (accounts plugin, PostgreSQL) and the server's hello with its password.
        let account = try await KintoTestAccount(prefix: "workers", server: kinto)
        let info = try await KintoServerInfoService(client: account.client).fetch()
        #expect(info.userID == "account:\(account.user.name)")
        #expect(info.capabilities.capabilities.contains("accounts"))

        // A batch of writes, then reads that any worker may answer: all there, each time.
        let written = try await account.seedBooks(20)
        #expect(written.count == 20)
        for _ in 0..<KintoServer.productionWorkers {
            #expect(try await account.list(BookDTO.self).count == 20)
        }
    }
}
