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
// Records are generated deterministically (fixed seed) in the Kinto wire shape, with
// non-ASCII characters escaped as \uXXXX the way Kinto sends them, and a description
// field that brings them to ~300 bytes.

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
                  "House", "Ocean", "Letters", "Müller", "Crown", "Island", "Silence", "Fire", "Años", "Stone",
                  "Memory", "Empire", "Forest", "Łódź", "Journey", "Light", "Glass", "Song", "Señor", "Tower"]
let firstNames = ["Ursula", "Gabriel", "Émile", "Haruki", "Jane", "Fyodor", "Toni", "José", "Stanisław", "Chinua",
                  "Hilary", "Jorge", "Zoë", "Kazuo", "Françoise", "Søren", "Italo", "Olga", "Ngũgĩ", "Wisława"]
let lastNames = ["Le Guin", "García Márquez", "Zola", "Murakami", "Austen", "Dostoevsky", "Morrison", "Saramago",
                 "Lem", "Achebe", "Mantel", "Borges", "Smith", "Ishiguro", "Sagan", "Kierkegaard", "Calvino",
                 "Tokarczuk", "wa Thiong'o", "Szymborska"]
let filler = ["a", "quiet", "story", "about", "time", "and", "loss", "told", "with", "wit", "across", "three",
              "generations", "of", "one", "family", "in", "the", "north"]

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
    let words = (0..<Int.random(in: 2...5, using: &generator)).map { _ in titleWords.randomElement(using: &generator)! }
    // NB: force unwraps are safe: the word lists are non-empty literals.
    let title = words.joined(separator: " ")
    let author = "\(firstNames.randomElement(using: &generator)!) \(lastNames.randomElement(using: &generator)!)"
    let description = (0..<Int.random(in: 22...30, using: &generator)).map { _ in filler.randomElement(using: &generator)! }.joined(separator: " ")
    let id = "book-\(index)"
    let lastModified = Int64(1_700_000_000_000 + index)
    let finished = Bool.random(using: &generator)
    let json = #"{"id":"\#(id)","title":"\#(kintoEscaped(title))","author_name":"\#(kintoEscaped(author))","finished":\#(finished),"description":"\#(description)","last_modified":\#(lastModified)}"#
    return RemoteRecord(id: id, lastModified: lastModified, json: Data(json.utf8))
}

// MARK: - Timing

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func format(_ duration: Duration) -> String {
    let value = seconds(duration)
    return value >= 1 ? String(format: "%.3f s", value) : String(format: "%.2f ms", value * 1000)
}

/// The median of `runs` timings, so one scheduler hiccup does not decide the figure.
func median<T>(runs: Int = 7, _ body: () throws -> T) rethrows -> (Duration, T) {
    let clock = ContinuousClock()
    var timings: [Duration] = []
    var result: T?
    for _ in 0..<runs {
        let start = clock.now
        result = try body()
        timings.append(clock.now - start)
    }
    // NB: the force unwrap is safe: `runs` is at least 1, so the loop assigned `result`.
    return (timings.sorted()[timings.count / 2], result!)
}

func report(_ label: String, _ duration: Duration, _ detail: String = "") {
    let padded = label.padding(toLength: 52, withPad: " ", startingAt: 0)
    print("\(padded) \(format(duration).leftPadded(to: 10))\(detail.isEmpty ? "" : "   \(detail)")")
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

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
            guard case .applied = try tx.applyRemote(record, to: .books) else {
                throw StorageError.corruptValue(what: "bench insert", reason: "unexpected pending change")
            }
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
