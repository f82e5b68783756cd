import BenchmarkSupport
import Domain
import Foundation
import Storage

// MARK: - StorageBench
//
// How the local store behaves at 100,000 books: one bulk insert (a first pull of a
// large library), then the queries the CLI runs: a search, counts, the first page and
// a deep page. Run in release: `swift run -c release StorageBench [count] [--keep]`
// (`--keep` leaves the database file behind for a look with `sqlite3`).
//
// Records: BenchmarkSupport's sample books (~300 bytes, Kinto-escaped).

// MARK: - Run

func run() throws {
    let arguments = CommandLine.arguments.dropFirst()
    let count = arguments.lazy.compactMap(Int.init).first ?? 100_000
    let keep = arguments.contains("--keep")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-bench-\(UUID().uuidString)")
    defer { if !keep { try? FileManager.default.removeItem(at: folder) } }
    let path = folder.appendingPathComponent("bench.sqlite")

    var generator = SeededGenerator(state: 42)
    let records = (0..<count).map { makeBook($0, using: &generator) }
    let averageSize = records.reduce(0) { $0 + $1.json.count } / max(count, 1)
    print("StorageBench: \(count) books, \(averageSize) bytes of JSON each on average, file \(path.path)")

    let clock = ContinuousClock()
    let store = try ShelfStore(location: .file(path))

    // Bulk insert: the path a first pull takes (parse, fold, index, one transaction).
    var start = clock.now
    try store.write { tx in
        for record in records {
            try tx.storePulled(record, in: .books)
        }
    }
    let insert = clock.now - start
    report("insert \(count) books, one transaction", insert,
           String(format: "%.0f records/s", Double(count) / seconds(insert)))

    // Local edits: record + outbox entry (+ base snapshot) per edit.
    let edits = min(10_000, count)
    start = clock.now
    try store.write { tx in
        for index in 0..<edits {
            let id = "book-\(index)"
            try tx.saveLocal(.books, id: id, json: Data(#"{"id":"\#(id)","title":"Edited \#(index)","author_name":"Bench","finished":true}"#.utf8))
        }
    }
    let editing = clock.now - start
    report("local edits of \(edits) books, one transaction", editing,
           String(format: "%.0f edits/s", Double(edits) / seconds(editing)))

    let fileSize = (try? FileManager.default.attributesOfItem(atPath: path.path)[.size] as? Int) ?? 0
    let walSize = (try? FileManager.default.attributesOfItem(atPath: path.path + "-wal")[.size] as? Int) ?? 0
    print("file: \(fileSize / 1_048_576) MB (+ \(walSize / 1_048_576) MB WAL)")

    // Queries, as the CLI runs them (median of 7).
    let (searchRare, rare) = try median { try store.read { try $0.records(RecordQuery(.books, search: "szymborska", limit: 50)) } }
    report("search 'szymborska', first page of 50", searchRare, "\(rare.count) shown")
    let (countRare, rareTotal) = try median { try store.read { try $0.count(RecordQuery(.books, search: "szymborska")) } }
    report("count search 'szymborska'", countRare, "\(rareTotal) matches")
    let (searchAccent, accented) = try median { try store.read { try $0.count(RecordQuery(.books, search: "CAFE")) } }
    report("count search 'CAFE' (finds Café)", searchAccent, "\(accented) matches")
    let (searchNone, none) = try median { try store.read { try $0.records(RecordQuery(.books, search: "no such words", limit: 50)) } }
    report("search with no match, first page (full scan)", searchNone, "\(none.count) shown")
    let (countAll, total) = try median { try store.read { try $0.count(RecordQuery(.books)) } }
    report("count all", countAll, "\(total) books")
    let (countFinished, finished) = try median { try store.read { try $0.count(RecordQuery(.books, complete: true)) } }
    report("count finished", countFinished, "\(finished) finished")
    let (firstPage, page) = try median { try store.read { try $0.records(RecordQuery(.books, limit: 50)) } }
    report("sorted first page of 50", firstPage, "\(page.count) shown")
    let (finishedPage, _) = try median { try store.read { try $0.records(RecordQuery(.books, complete: false, limit: 50)) } }
    report("sorted first page of 50 unfinished", finishedPage)
    let (deepPage, _) = try median { try store.read { try $0.records(RecordQuery(.books, limit: 50, offset: count / 2)) } }
    report("sorted page of 50 at offset \(count / 2)", deepPage)
    let (getByID, _) = try median { try store.read { try $0.record(.books, id: "book-\(count / 3)") } }
    report("get by id", getByID)
    let (pending, pendingCount) = try median { try store.read { try $0.syncStatus() } }
    report("sync status summary", pending, "\(pendingCount.pendingChanges) pending")

    start = clock.now
    let reopened = try ShelfStore(location: .file(path))
    let reopen = clock.now - start
    report("reopen (no migration to run)", reopen)
    _ = reopened
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("StorageBench: \(error)\n".utf8))
    exit(1)
}
