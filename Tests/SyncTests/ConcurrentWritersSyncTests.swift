import Domain
import Foundation
import Services
import Storage
import Sync
import Synchronization
import TestSupport
import Testing

/// Devices of one reader writing into one collection at the same moment, against Kinto
/// as its docs say to run it: PostgreSQL and several gunicorn workers
/// (`KintoServer.sharedProduction()`). There, concurrent batches commit out of
/// timestamp order, and a batch whose answers mix `201`s and a `409` keeps only part
/// of what it answered `201` (the 409 rolls the transaction back so far; the rest of
/// the batch commits).
@Suite("Concurrent writers on the production server (PostgreSQL, several workers)", .serialized)
struct ConcurrentWritersSyncTests {
    let server: KintoServer
    let user: TestUser

    init() async throws {
        server = try KintoServer.sharedProduction()
        user = try await server.newUser(prefix: "concurrent")
    }

    private func device(_ clashes: ClashCounter = ClashCounter()) throws -> SyncDevice {
        try SyncDevice(
            user: user, server: server, options: SyncOptions(collections: [.books], retry: RetryPolicy(maxAttempts: 4)),
            transport: ClashCountingTransport(counter: clashes))
    }

    /// Every device syncs, in turn, until a round in which none pulled or pushed anything.
    private func syncUntilQuiet(_ devices: [SyncDevice], rounds: Int = 6) async throws {
        for _ in 0..<rounds {
            var moved = 0
            for device in devices {
                let report = await device.sync()
                #expect(report.outcome == .synced, "\(report.message)")
                moved += report.collections.values.reduce(0) { $0 + $1.pulled + $1.pushed + $1.merged }
            }
            if moved == 0 { return }
        }
        Issue.record("still syncing after \(rounds) rounds")
    }

    private func serverBookIDs(_ device: SyncDevice) async throws -> Set<String> {
        let result = try await KintoCollectionService(client: device.client, collection: .books).allRecords()
        return Set(result.page?.records.map(\.id) ?? [])
    }

    private func localBookIDs(_ device: SyncDevice) throws -> Set<String> {
        Set(try device.store.read { try $0.records(RecordQuery(.books)).map(\.id) })
    }

    // MARK: - Batches that half happened

    @Test func batchesAnsweredWithA409AreStoredExactlyAsTheServerKeptThem() async throws {
        // GIVEN four devices, each with 75 new books (3 batches each), pushing at once —
        // round after round until some batch met a 409
        let clashes = ClashCounter()
        let writers = try (0..<4).map { _ in try device(clashes) }
        var written: Set<String> = []
        for round in 0..<8 where clashes.count == 0 || round < 2 {
            for (index, writer) in writers.enumerated() {
                for number in 0..<75 {
                    let id = "r\(round)-d\(index)-\(number)"
                    try writer.saveBook(id, title: "Book \(id)")
                    written.insert(id)
                }
            }
            // WHEN they push at the same moment
            let reports = await withTaskGroup(of: RunReport.self) { group in
                for writer in writers { group.addTask { await writer.sync() } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for report in reports { #expect(report.outcome == .synced || report.outcome == .temporaryFailure, "\(report.message)") }
        }
        #expect(clashes.count > 0, "no batch met a 409 in 8 rounds: the case was not exercised")

        // THEN once they have synced until quiet: nothing lost, nothing twice, nothing pending
        try await syncUntilQuiet(writers)
        let onServer = try await serverBookIDs(writers[0])
        let (lost, extra) = (written.subtracting(onServer).count, onServer.subtracting(written).count)
        #expect(lost == 0 && extra == 0, "missing on the server: \(lost), extra: \(extra)")
        for writer in writers {
            let local = try localBookIDs(writer)
            #expect(local.count == onServer.count && local.subtracting(onServer).isEmpty, "\(local.count) here, \(onServer.count) on the server")
            #expect(try writer.store.pendingCount() == 0)
            #expect(try writer.store.read { try $0.conflictCount() } == 0)
            #expect(try writer.store.read { try $0.deadLetterCount() } == 0)
        }
    }

    // MARK: - Readers between two commits

    @Test func readersPullingWhileWritersPushEndWithEveryBook() async throws {
        // GIVEN three writers adding books in rounds, all pushing at once, and two readers
        // syncing in a loop meanwhile
        let writers = try (0..<3).map { _ in try device() }
        let readers = try (0..<2).map { _ in try device() }
        let writing = WritingFlag()
        let readerRuns = await withTaskGroup(of: Int.self) { group in
            for reader in readers {
                group.addTask {
                    var runs = 0
                    while writing.isOn && runs < 400 {
                        _ = await reader.sync()
                        runs += 1
                    }
                    return runs
                }
            }
            for round in 0..<6 {
                for (index, writer) in writers.enumerated() {
                    for number in 0..<20 { try? writer.saveBook("w\(index)-r\(round)-\(number)", title: "Round \(round)") }
                }
                await withTaskGroup(of: Void.self) { pushes in
                    for writer in writers { pushes.addTask { _ = await writer.sync() } }
                }
            }
            writing.turnOff()
            return await group.reduce(0, +)
        }
        #expect(readerRuns > 0)

        // WHEN every device syncs until quiet
        try await syncUntilQuiet(writers + readers)

        // THEN every device holds exactly the server's 360 books
        let onServer = try await serverBookIDs(writers[0])
        #expect(onServer.count == 360)
        for device in writers + readers {
            let local = try localBookIDs(device)
            let (missing, extra) = (onServer.subtracting(local).count, local.subtracting(onServer).count)
            #expect(missing == 0 && extra == 0, "missing \(missing), extra \(extra)")
        }
    }
}

/// Whether the writers are still at work; the readers loop until they are done.
final class WritingFlag: Sendable {
    private let value = Mutex(true)
    var isOn: Bool { value.withLock { $0 } }
    func turnOff() { value.withLock { $0 = false } }
}

// MARK: - Counting 409s

/// How many batch sub-responses were 409s, over every device that shares it.
final class ClashCounter: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func add(_ count: Int) { value.withLock { $0 += count } }
}

/// libcurl's transport, counting the `409`s in the answers of `POST /batch`.
struct ClashCountingTransport: HTTPTransport {
    let counter: ClashCounter
    let inner: any HTTPTransport = CurlTransport.shared

    func send(_ request: HTTPRequest, onHead: (@Sendable (HTTPResponseHead) -> Void)?) async throws -> HTTPResponse {
        let response = try await inner.send(request, onHead: onHead)
        if request.url.hasSuffix("/batch") {
            let body = String(decoding: response.body, as: UTF8.self)
            counter.add(body.components(separatedBy: #""status":409"#).count - 1 + body.components(separatedBy: #""status": 409"#).count - 1)
        }
        return response
    }
}
