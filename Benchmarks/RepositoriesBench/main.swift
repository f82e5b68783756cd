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
// Records are generated deterministically (fixed seed) in the Kinto wire shape, with
// non-ASCII text escaped as \uXXXX the way Kinto sends it, and a `description` field
// Shelf does not know, which every edit must keep.

// MARK: - Data

/// SplitMix64: a small deterministic generator, so every run stores the same records.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let titleWords = ["Dune", "Shadow", "River", "Café", "Night", "Garden", "Winter", "Mirror", "Soledad", "Étranger",
                  "House", "Ocean", "Letters", "Müller", "Crown", "Island", "Silence", "Fire", "Años", "Stone"]
let authors = ["Ursula Le Guin", "Gabriel García Márquez", "Émile Zola", "Haruki Murakami", "Jane Austen",
               "Toni Morrison", "Stanisław Lem", "Chinua Achebe", "Wisława Szymborska", "Italo Calvino"]

/// JSON string contents as Kinto writes them: ASCII, with \uXXXX (and surrogate pairs).
func kintoEscaped(_ text: String) -> String {
    var out = ""
    for unit in text.utf16 {
        switch unit {
        case 0x22: out += "\\\""
        case 0x5C: out += "\\\\"
        case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
        default: out += String(format: "\\u%04x", unit)
        }
    }
    return out
}

func makeBook(_ index: Int, using generator: inout SeededGenerator) -> RemoteRecord {
    // NB: force unwraps are safe: the word lists are non-empty literals.
    let title = (0..<Int.random(in: 2...4, using: &generator)).map { _ in titleWords.randomElement(using: &generator)! }
        .joined(separator: " ")
    let author = authors.randomElement(using: &generator)!
    let id = "book-\(index)"
    let lastModified = Int64(1_700_000_000_000 + index)
    let finished = Bool.random(using: &generator)
    let json = #"{"id":"\#(id)","title":"\#(kintoEscaped(title))","author_name":"\#(kintoEscaped(author))","finished":\#(finished),"description":"a quiet story told with wit","last_modified":\#(lastModified)}"#
    return RemoteRecord(id: id, lastModified: lastModified, json: Data(json.utf8))
}

/// The sync engine's side, standing still: the bench measures the repository alone.
struct UnchangedRefresher: CollectionRefreshing {
    func refresh(_ collection: CollectionName) async throws -> RefreshSummary { .unchanged }
}

// MARK: - Timing

func format(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    return value >= 1 ? String(format: "%.3f s", value) : String(format: "%.3f ms", value * 1000)
}

/// The median of `runs` timings, so one scheduler hiccup does not decide the figure.
func median<T>(runs: Int = 7, _ body: () async throws -> T) async rethrows -> (Duration, T) {
    let clock = ContinuousClock()
    var timings: [Duration] = []
    var result: T?
    for _ in 0..<runs {
        let start = clock.now
        result = try await body()
        timings.append(clock.now - start)
    }
    // NB: the force unwrap is safe: `runs` is at least 1, so the loop assigned `result`.
    return (timings.sorted()[timings.count / 2], result!)
}

func report(_ label: String, _ duration: Duration, _ detail: String = "") {
    let padded = label.padding(toLength: 52, withPad: " ", startingAt: 0)
    let time = format(duration)
    let aligned = String(repeating: " ", count: max(0, 10 - time.count)) + time
    print("\(padded) \(aligned)\(detail.isEmpty ? "" : "   \(detail)")")
}

// MARK: - Run

func run() async throws {
    let count = CommandLine.arguments.dropFirst().lazy.compactMap(Int.init).first ?? 100_000
    var generator = SeededGenerator(state: 42)
    let records = (0..<count).map { makeBook($0, using: &generator) }
    let store = try ShelfStore.inMemory()
    try store.write { tx in _ = try tx.applyRemote(records, to: .books) }
    try store.write { tx in _ = try tx.updateSyncState(.books) { $0.lastSuccess = Date() } }
    print("RepositoriesBench: \(count) books in an in-memory store, synced just now (no refresh is due)")

    let clock = ContinuousClock()
    var repository = BookRepository(store: store, refresher: UnchangedRefresher())

    let (storeRead, stored) = try await median(runs: 3) { try store.records(RecordQuery(.books)) }
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
    report("search 'szymborska', page of 20 (cold repository)", search, "\(found.value.totalMatches) matches")

    let (accented, cafe) = try await median { try await repository.books(matching: "CAFE", unfinishedOnly: true, limit: 20) }
    report("search 'CAFE' unfinished, page of 20", accented, "\(cafe.value.totalMatches) matches")

    let (none, nothing) = try await median { try await repository.books(matching: "no such words", limit: 20) }
    report("search with no match (full scan)", none, "\(nothing.value.totalMatches) matches")

    let (page, firstPage) = try await median { try await repository.books(unfinishedOnly: true, limit: 20) }
    report("first page of 20 unfinished", page, "\(firstPage.value.totalMatches) unfinished")

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
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("RepositoriesBench: \(error)\n".utf8))
    exit(1)
}
