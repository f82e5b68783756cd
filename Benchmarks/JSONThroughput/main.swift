import Domain
import Foundation
import RecordDTOs
import Records
import Services
import Storage
import Sync

// MARK: - shelf-json-throughput
//
// How fast a page of records goes from the bytes Kinto sent to rows in the store,
// next to Foundation's `JSONDecoder` on the same bytes:
//
//     shelf-json-throughput PAGE.json [--repeat N] [--only scan|decode|store]
//     shelf-json-throughput PAGE.json --write-store STORE.sqlite
//
// PAGE.json is a list page captured from Kinto (`make bench` writes one to
// `Benchmarks/results/page-10000.json`). Each figure is the median of N timed
// repetitions (default 10), in MB/s of the page file (MB = 10^6 bytes), printed as
// `<what>: <number> MB/s`; the last line is the headline, bytes → stored records —
// the contract `Benchmarks/json_throughput.py` follows for Python.
//
// - scanner only: `RecordPageScanner.scan`, the validating byte scanner the sync
//   engine reads every page with (id, last_modified, deleted and each record's bytes).
// - JSONDecoder into BookDTOs: Foundation decoding the same page into `[BookDTO]`,
//   what a client built on `Decodable` would do before it could store anything.
// - bytes to stored records: the sync engine's path for one pulled page — scan into
//   `RawRecord`s, and `SyncRules.applyPulled` of the whole page plus the cursor in
//   one write transaction of a fresh file store (WAL, `synchronous=NORMAL`), commit
//   included. Opening the store is not timed: a sync opens it once for all its pages.
//
// `--write-store` times nothing: it applies the page once, exactly as the headline
// does, into a new store at that path and keeps it, so the harness can compare what
// Shelf stored row by row with another implementation (Benchmarks/storage_race.py).

// MARK: - Command line

struct Arguments {
    var page: URL
    var repeats = 10
    /// One path to time alone; nil for all three.
    var only: Path?
    /// Where to keep a store holding the page, instead of timing anything.
    var writeStore: URL?

    enum Path: String, CaseIterable { case scan, decode, store }

    init(_ arguments: [String]) throws(UsageError) {
        var rest = arguments[...]
        var page: String?
        while let argument = rest.popFirst() {
            if argument == "--repeat" {
                guard let value = rest.popFirst().flatMap(Int.init), value > 0 else {
                    throw UsageError("--repeat needs a positive whole number")
                }
                repeats = value
            } else if argument == "--only" {
                guard let value = rest.popFirst().flatMap(Path.init(rawValue:)) else {
                    throw UsageError("--only needs one of \(Path.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                only = value
            } else if argument == "--write-store" {
                guard let value = rest.popFirst(), !value.isEmpty else {
                    throw UsageError("--write-store needs a path for the new store")
                }
                writeStore = URL(fileURLWithPath: value)
            } else if page == nil, !argument.hasPrefix("-") {
                page = argument
            } else {
                throw UsageError("unexpected argument '\(argument)'")
            }
        }
        guard let page else { throw UsageError("no page file given") }
        self.page = URL(fileURLWithPath: page)
    }
}

struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Timing

/// Runs `body` `repeats` times after one untimed warm-up and returns the median
/// duration in seconds. `prepare` runs before each repetition, outside the timing.
func medianSeconds<State>(
    repeats: Int, prepare: () throws -> State, _ body: (State) throws -> Void
) throws -> Double {
    try body(try prepare())
    var times: [Double] = []
    for _ in 0..<repeats {
        let state = try prepare()
        let started = ContinuousClock.now
        try body(state)
        let elapsed = ContinuousClock.now - started
        times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    times.sort()
    let middle = times.count / 2
    return times.count % 2 == 1 ? times[middle] : (times[middle - 1] + times[middle]) / 2
}

// MARK: - The three paths

/// What `JSONDecoder` reads a list page into.
struct BookPageDTO: Decodable {
    var data: [BookDTO]
}

/// A fresh store in its own folder, removed when the value goes away.
final class ScratchStore {
    let folder: URL
    let store: ShelfStore

    init() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("shelf-json-throughput-\(UUID().uuidString)", isDirectory: true)
        store = try ShelfStore(location: .file(folder.appendingPathComponent("store.sqlite")))
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// The sync engine's steps for one pulled page (`CollectionPull.apply`): scan, then
/// apply with the cursor in one transaction.
func storePage(_ bytes: Data, in store: ShelfStore) throws -> Int {
    let remote = try RecordPageScanner.scan(bytes, indexingFor: .books)
    return try store.write { tx in
        let held = try SyncRules(tx).applyPulled(remote, to: .books)
        let highest = remote.map(\.lastModified).max()
        try tx.updateSyncState(.books) { state in
            if let highest { state.cursor = max(state.cursor ?? highest, highest) }
        }
        return remote.count - held.count
    }
}

/// Applies `page` once into a new store at `destination` and keeps it.
func writeStore(_ page: Data, to destination: URL) throws {
    guard !FileManager.default.fileExists(atPath: destination.path) else {
        throw UsageError("\(destination.path) exists; --write-store only creates a new store")
    }
    let store = try ShelfStore(location: .file(destination))
    let stored = try storePage(page, in: store)
    print("stored records: \(stored) in \(destination.path)")
}

// MARK: - Main

func run() throws {
    let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
    let page = try Data(contentsOf: arguments.page)
    if let destination = arguments.writeStore {
        try writeStore(page, to: destination)
        return
    }
    let megabytes = Double(page.count) / 1e6

    // Checks before timing: every path reads the same records.
    let scanned = try RecordPageScanner.scan(page)
    let decoded = try JSONDecoder().decode(BookPageDTO.self, from: page).data
    let check = try ScratchStore()
    let stored = try storePage(page, in: check.store)
    let counted = try check.store.read { reader in try reader.count(RecordQuery(.books)) }
    guard decoded.count == scanned.count, stored == scanned.count, counted == scanned.count else {
        throw UsageError("the paths disagree: scanned \(scanned.count), decoded \(decoded.count), stored \(stored), counted \(counted)")
    }
    print("records: \(scanned.count), bytes: \(page.count)")

    func wanted(_ path: Arguments.Path) -> Bool { arguments.only == nil || arguments.only == path }

    if wanted(.scan) {
        let scan = try medianSeconds(repeats: arguments.repeats, prepare: {}) { _ in
            _ = try RecordPageScanner.scan(page)
        }
        print(String(format: "scanner only: %.1f MB/s", megabytes / scan))
    }
    if wanted(.decode) {
        let decode = try medianSeconds(repeats: arguments.repeats, prepare: {}) { _ in
            _ = try JSONDecoder().decode(BookPageDTO.self, from: page)
        }
        print(String(format: "JSONDecoder into BookDTOs: %.1f MB/s", megabytes / decode))
    }
    if wanted(.store) {
        let store = try medianSeconds(repeats: arguments.repeats, prepare: { try ScratchStore() }) { scratch in
            _ = try storePage(page, in: scratch.store)
        }
        print(String(format: "bytes to stored records: %.1f MB/s", megabytes / store))
    }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("shelf-json-throughput: \(error)\n".utf8))
    exit(1)
}
