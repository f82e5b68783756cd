import BenchmarkSupport
import Domain
import Encryption
import Foundation
import Records
import Storage
import Sync

// MARK: - shelf-bench-sealed
//
// What sealing costs the client on the sync path, in-process, no server: the same
// generated books as a plaintext page and as a sealed one (format 2), each applied to a
// fresh store the way a first pull applies a page (scan; open; store with the sync
// rules), plus a push body sealed and an idle page's records opened only to be dropped.
//
//     shelf-bench-sealed [--books N] [--repeat N]
//
// Times are the process's CPU seconds (CLOCK_PROCESS_CPUTIME_ID), the median of the
// repeats; a ratio sealed / plaintext is printed for each pair. Run it release:
// `swift run -c release shelf-bench-sealed`, or under callgrind for instructions.

struct Arguments {
    var books = 10_000
    var repeats = 5

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard let value = rest.popFirst().flatMap(Int.init), value > 0 else {
                throw Failure("\(argument) needs a positive number")
            }
            switch argument {
            case "--books": books = value
            case "--repeat": repeats = value
            default: throw Failure("unexpected argument '\(argument)' (--books N, --repeat N)")
            }
        }
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// CPU seconds of this process so far.
func cpuSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// The median CPU seconds of `body` over `repeats` runs, after one untimed warm-up;
/// `prepare` runs outside the timing.
func medianCPU<State>(repeats: Int, prepare: () throws -> State, _ body: (State) throws -> Void) throws -> Double {
    try body(try prepare())
    var times: [Double] = []
    for _ in 0 ..< repeats {
        let state = try prepare()
        let started = cpuSeconds()
        try body(state)
        times.append(cpuSeconds() - started)
    }
    times.sort()
    return times[times.count / 2]
}

/// A fresh store in its own folder, removed with the value.
final class ScratchStore {
    let folder: URL
    let store: ShelfStore

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-bench-sealed-\(UUID().uuidString)")
        store = try ShelfStore(location: .file(folder.appendingPathComponent("store.sqlite")))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}

/// `{"data": [records]}`.
func page(_ records: [Data]) -> Data {
    var body = Data(#"{"data":["#.utf8)
    for (index, record) in records.enumerated() {
        if index > 0 { body.append(UInt8(ascii: ",")) }
        body.append(record)
    }
    body.append(contentsOf: Array("]}".utf8))
    return body
}

func run() throws {
    let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
    var generator = SeededGenerator(state: 42)
    // NB: every book carries a lineage, as a record Shelf wrote does, in both pages.
    let books = try (0 ..< arguments.books).map { index in
        var book = makeBook(index, using: &generator)
        var fields = try WireJSON.fields(book.json)
        fields[VersionFields.lineage] = .array([.string(UUID().uuidString.lowercased())])
        book.json = try WireJSON.data(fields)
        return book
    }
    let sealer = RecordSealer(keyring: Keyring(current: try DataKey.generate()), bucket: "default")
    let plainPage = page(books.map(\.json))
    let sealedPage = page(try books.map { book in
        var sealed = try sealer.seal(try WireJSON.fields(book.json), in: "books", sequence: 1)
        sealed["last_modified"] = .number(Double(book.lastModified))
        return try WireJSON.data(sealed)
    })
    print("books: \(books.count); plaintext page \(plainPage.count) bytes, sealed page \(sealedPage.count) bytes")

    /// A first pull of one page: scan (and open), then store under the sync rules.
    func apply(_ bytes: Data, sealed: Bool, to store: ShelfStore) throws {
        var records = try RecordListScanner.records(in: bytes, maximumRecords: 1_000_000, indexingFor: .books)
        if sealed {
            // NB: one opener a page, as the sync engine opens one (`WireSealing.opened`).
            let opener = RecordOpener(sealer)
            records = try records.map { try opener.open($0, in: "books", indexing: .books).record }
        }
        try store.write { tx in _ = try SyncRules(tx).applyPulled(records, to: .books) }
    }

    var rows: [(String, Double, Double)] = []
    let plainFirst = try medianCPU(repeats: arguments.repeats, prepare: { try ScratchStore() }) { try apply(plainPage, sealed: false, to: $0.store) }
    let sealedFirst = try medianCPU(repeats: arguments.repeats, prepare: { try ScratchStore() }) { try apply(sealedPage, sealed: true, to: $0.store) }
    rows.append(("a first pull's page: scan, open, store", plainFirst, sealedFirst))

    let plainScan = try medianCPU(repeats: arguments.repeats, prepare: {}) { _ in
        _ = try RecordListScanner.records(in: plainPage, maximumRecords: 1_000_000, indexingFor: .books)
    }
    let sealedOpen = try medianCPU(repeats: arguments.repeats, prepare: {}) { _ in
        let records = try RecordListScanner.records(in: sealedPage, maximumRecords: 1_000_000, indexingFor: .books)
        let opener = RecordOpener(sealer)
        for record in records { _ = try opener.open(record, in: "books", indexing: .books) }
    }
    rows.append(("scan only / scan and open", plainScan, sealedOpen))
    let sealedScan = try medianCPU(repeats: arguments.repeats, prepare: {}) { _ in
        _ = try RecordListScanner.records(in: sealedPage, maximumRecords: 1_000_000, indexingFor: .books)
    }
    let scannedSealed = try RecordListScanner.records(in: sealedPage, maximumRecords: 1_000_000, indexingFor: .books)
    let openOnly = try medianCPU(repeats: arguments.repeats, prepare: {}) { _ in
        let opener = RecordOpener(sealer)
        for record in scannedSealed { _ = try opener.open(record, in: "books", indexing: .books) }
    }
    rows.append(("scan only: plaintext page / sealed page", plainScan, sealedScan))
    rows.append(("scan only / open only (pre-scanned)", plainScan, openOnly))

    let bodies = try books.prefix(1_000).map { try PushBody.of($0.json, collection: .books, id: $0.id) }
    let plainPush = try medianCPU(repeats: arguments.repeats, prepare: {}) { _ in
        for (book, body) in zip(books, bodies) { _ = try PushBody.stamping(body, lineage: ["r"], sequence: 2, collection: .books, id: book.id) }
    }
    let sealedPush = try medianCPU(repeats: arguments.repeats, prepare: {}) { _ in
        for (book, body) in zip(books, bodies) {
            let stamped = try PushBody.stamping(body, lineage: ["r"], sequence: 2, collection: .books, id: book.id)
            var fields = try WireJSON.fields(stamped)
            fields["id"] = .string(book.id)
            _ = try WireJSON.data(try sealer.seal(fields, in: "books", sequence: 2))
        }
    }
    rows.append(("1,000 push bodies: stamped / stamped and sealed", plainPush, sealedPush))

    for (what, plain, sealed) in rows {
        print(String(format: "%-50@ plaintext %.3f s  sealed %.3f s  ratio %.2f", what as NSString, plain, sealed, sealed / plain))
    }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("shelf-bench-sealed: \(error)\n".utf8))
    exit(1)
}
