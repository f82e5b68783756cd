import Domain
import Foundation
import Testing
import TestSupport
@testable import Storage

/// A writer killed with SIGKILL in the middle of its transactions must leave a store
/// that opens, passes SQLite's integrity check, and holds whole transactions only:
/// every record a local edit wrote has its outbox entry, and vice versa.
@Suite("Crash safety", .serialized)
struct CrashTests {
    /// `StorageCrashProbe`, built next to the test bundle by `swift build --build-tests`.
    static func probeExecutable() throws -> URL {
        let name = "StorageCrashProbe"
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(name))
        }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name))
        for configuration in ["debug", "release"] {
            candidates.append(FixtureFiles.repositoryRoot.appendingPathComponent(".build/\(configuration)/\(name)"))
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            Issue.record("\(name) not found; looked at \(candidates.map(\.path)). Build it with `swift build --build-tests`.")
            throw CocoaError(.fileNoSuchFile)
        }
        return found
    }

    /// Runs the probe until it reports `killAfter` committed batches, then kills it.
    /// - Returns: the last batch the probe reported as committed before it died.
    private func runProbeAndKill(database: URL, killAfter: Int, bulk: Bool = false) throws -> Int {
        let process = Process()
        process.executableURL = try Self.probeExecutable()
        process.arguments = [database.path, "1000000"] + (bulk ? ["bulk"] : [])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()

        var buffer = Data()
        var lastCommitted = -1
        reading: while lastCommitted < killAfter {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // the probe exited on its own: a failure, checked below
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                if line.hasPrefix("committed "), let batch = Int(line.dropFirst(10)) {
                    lastCommitted = batch
                    if batch >= killAfter { break reading }
                }
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the probe must die by the signal, not finish")
        #expect(process.terminationStatus == SIGKILL)
        // On a loaded machine the probe runs ahead of this reader: lines it wrote before
        // the kill may still sit in the pipe. They count as reported too.
        buffer.append(output.fileHandleForReading.readDataToEndOfFile())
        for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n") where line.hasPrefix("committed ") {
            if let batch = Int(line.dropFirst(10)) { lastCommitted = max(lastCommitted, batch) }
        }
        return lastCommitted
    }

    @Test(arguments: [1, 6, 20])
    func aKilledWriterLeavesWholeTransactions(killAfter: Int) throws {
        let folder = try TemporaryDirectory()
        let database = folder.file("crash.sqlite")

        let reported = try runProbeAndKill(database: database, killAfter: killAfter)
        #expect(reported >= killAfter)

        // Reopen, as the next CLI run would.
        let store = try ShelfStore(location: .file(database))
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])

        let (live, entries) = try store.read { reader in
            (try reader.records(RecordQuery(.books)), try reader.pendingChanges(skippingConflicts: false).map(\.entry))
        }
        let liveByID = Dictionary(uniqueKeysWithValues: live.map { ($0.id, $0) })
        let entryByID = Dictionary(uniqueKeysWithValues: entries.map { ($0.recordID, $0) })

        // Batches are all or nothing: batch k is committed when its first record exists.
        let committed = (0...).prefix { liveByID["b-\($0)-0"] != nil }.count
        #expect(committed >= reported + 1, "every reported commit is durable")
        #expect(committed <= reported + 2, "at most the batch in flight when the kill came committed unreported")
        for k in committed..<(committed + 3) {
            #expect(liveByID["b-\(k)-0"] == nil && entryByID["b-\(k)-0"] == nil)
        }

        // Every local change has its entry and base, and every entry its change.
        #expect(try StoreInvariants.violations(in: store).isEmpty)

        // The exact shape of `committed` batches (see StorageCrashProbe).
        #expect(live.count == 10_000 - 5 * committed + 90 * committed)
        #expect(entries.count == 90 * committed + 10 * committed + 5 * committed)
        #expect(entries.filter { $0.kind == .update }.count == 10 * committed)
        #expect(entries.filter { $0.kind == .delete }.count == 5 * committed)
        for k in 0..<committed {
            #expect(liveByID["b-\(k)-89"] != nil && liveByID["b-\(k)-90"] == nil)
            #expect(entryByID["r-\(10 * k)"]?.baseLastModified == Int64(1_000 + 10 * k))
        }
        #expect(entryByID["r-\(10 * committed)"] == nil)

        // Each committed batch is one operation of the history, written with it: 90 books
        // added, 10 edited, 5 deleted (the 10 created and deleted within it changed nothing).
        let operations = try store.read { try $0.operations() }
        #expect(operations.count == committed, "an operation for every committed batch, none for one that was not")
        for (k, operation) in operations.enumerated() {
            let changes = try store.read { try $0.operationChanges(operation.sequence) }
            #expect(changes.count == 105 && operation.isComplete)
            let created = try #require(changes.first { $0.recordID == "b-\(k)-1" })
            #expect(created.before == nil && created.after == liveByID["b-\(k)-1"]?.json)
            #expect(changes.filter { $0.after == nil }.count == 5)
        }
    }

    /// A first sync's bulk load killed mid-way (the id index left out) opens with the
    /// index built, every reported page whole, no id twice, and a pull that goes on.
    @Test(arguments: [0, 3])
    func aKilledBulkLoadLeavesWholePagesAndGetsItsIndexBack(killAfter: Int) throws {
        let folder = try TemporaryDirectory()
        let database = folder.file("bulk.sqlite")

        let reported = try runProbeAndKill(database: database, killAfter: killAfter, bulk: true)
        #expect(reported >= killAfter)

        // Reopen, as the next run would.
        let store = try ShelfStore(location: .file(database))
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])
        #expect(try store.withConnection { connection throws(StorageError) in try IdentityIndex.isPresent(connection) })
        #expect(try store.withConnection { connection throws(StorageError) in try ListingIndexes.arePresent(connection) })

        // Pages are all or nothing, and no id is there twice.
        let (rows, distinct) = try store.read { reader in
            try reader.db.queryFirst("SELECT count(*), count(DISTINCT id) FROM records", operation: "count") { ($0.int(0), $0.int(1)) }
                ?? (0, 0)
        }
        let committed = rows / 2_000
        #expect(rows == committed * 2_000)
        #expect(rows == distinct)
        #expect(committed >= reported + 1, "every reported page is durable")
        #expect(committed <= reported + 2)

        // The pull goes on: the last stored page comes again (the cursor's page), and more.
        let again = (0..<2_000).map { i in
            Wire.remoteBook("p-\(committed - 1)-\(i)", title: "Again", lastModified: Int64(9_000_000 + i))
        }
        try store.write(bulkLoad: BulkLoad()) { tx in try tx.storePulled(again, in: .books, morePagesFollow: false) }
        #expect(try store.read { try $0.count(RecordQuery(.books)) } == committed * 2_000)
        #expect(try store.read { try $0.integrityCheck() } == ["ok"])
    }
}
