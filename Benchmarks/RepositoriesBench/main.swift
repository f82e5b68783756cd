import BenchmarkSupport
import Domain
import Foundation
import Repositories
import Storage

// MARK: - RepositoriesBench
//
// What the CLI pays for through a repository at 100,000 books: the first full load
// (read and decode every record through its DTO), a load served from memory, indexed
// searches that decode only the page they show, and a local edit with the whole
// collection in memory. Run in release: `swift run -c release RepositoriesBench [count]`.
//
// Records: BenchmarkSupport's sample books, whose `description` field Shelf does not
// know and every edit must keep.

// MARK: - Refreshes

/// The sync engine's side, standing still: the bench measures the repository alone.
struct UnchangedRefresher: CollectionRefreshing {
    func refresh(_ collection: CollectionName) async throws -> RefreshSummary { .unchanged }
}

// MARK: - Run

func run() async throws {
    let count = CommandLine.arguments.dropFirst().lazy.compactMap(Int.init).first ?? 100_000
    var generator = SeededGenerator(state: 42)
    let records = (0..<count).map { makeBook($0, using: &generator) }
    let store = try ShelfStore.inMemory()
    try store.write { tx in try tx.storePulled(records, in: .books) }
    try store.write { tx in _ = try tx.updateSyncState(.books) { $0.lastSuccess = Date() } }
    print("RepositoriesBench: \(count) books in an in-memory store, synced just now (no refresh is due)")

    let clock = ContinuousClock()
    var repository = BookRepository(store: store, refresher: UnchangedRefresher())

    let (storeRead, stored) = try median(runs: 3) { try store.records(RecordQuery(.books)) }
    report("store read of every book, without decoding", storeRead, "\(stored.count) records")

    var start = clock.now
    let first = try await repository.load()
    report("first load: read and decode every book", clock.now - start, "\(first.value.count) books")

    let (cached, again) = try await median { try await repository.load() }
    report("load again, from memory", cached, "\(again.value.count) books")

    let (search, found) = try await median {
        repository = BookRepository(store: store, refresher: UnchangedRefresher())
        return try await repository.books(matching: "szymborska", limit: 20)
    }
    report("search 'szymborska', page of 20 (cold repository)", search, "\(found.value.totalMatches ?? 0) matches")

    let (accented, cafe) = try await median { try await repository.books(matching: "CAFE", unfinishedOnly: true, limit: 20) }
    report("search 'CAFE' unfinished, page of 20", accented, "\(cafe.value.totalMatches ?? 0) matches")

    let (none, nothing) = try await median { try await repository.books(matching: "no such words", limit: 20) }
    report("search with no match (full scan)", none, "\(nothing.value.totalMatches ?? 0) matches")

    let (page, firstPage) = try await median { try await repository.books(unfinishedOnly: true, limit: 20) }
    report("first page of 20 unfinished", page, "\(firstPage.value.totalMatches ?? 0) unfinished")

    _ = try await repository.load()
    var edited = 0
    let (edit, _) = try await median {
        edited += 1
        var book = try await repository.book(id: "book-\(count / 2 + edited)")!
        // NB: the force unwrap is safe: every id book-0 ..< book-count exists.
        book.isFinished.toggle()
        try book.rename(to: "Edited \(edited)")
        try await repository.updateBook(book)
    }
    report("edit one book with \(count) in memory", edit, "record + outbox + cache")

    start = clock.now
    let added = try await repository.addBook(title: "Zazie dans le métro", author: "Raymond Queneau")
    report("add one book with \(count) in memory", clock.now - start, added.id)
    print("pending changes: \(try store.pendingCount())")

    try await benchLookup(store, count: count)
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("RepositoriesBench: \(error)\n".utf8))
    exit(1)
}
