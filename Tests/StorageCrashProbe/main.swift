import Domain
import Foundation
import Records
import Storage

// MARK: - StorageCrashProbe
//
// Writes to a store in a long series of transactions until it is killed; the crash
// test kills it with SIGKILL mid-way and checks that the reopened store is consistent.
//
// Usage: StorageCrashProbe <database path> <batches>
//
// First, in one transaction, it stores `syncedCount` records as if pulled from a
// server (`r-<n>`). Then each batch k, in ONE transaction — a reader's edit, recorded as
// one operation of the history (`ShelfStore.edit`) — makes local edits:
// - creates `b-k-0` … `b-k-99` (outbox: create),
// - edits `b-k-0` … `b-k-49` again (create + update → create),
// - deletes `b-k-90` … `b-k-99` (create + delete → nothing),
// - edits the synced `r-<10k>` … `r-<10k+9>` (update against their server version),
// - deletes the synced `r-<5000+5k>` … `r-<5000+5k+4>` (delete).
// After each commit it writes `committed k` unbuffered, so the test knows how far it got.
//
// Usage: StorageCrashProbe <database path> <pages> bulk
//
// A first sync's bulk load instead (`BulkLoad`): into an empty store, page k of
// `bulkPageSize` books `p-<k>-<i>` (every page with more to come, so the load is under
// way, without the id index, whenever the kill comes), one transaction per page, and
// `committed k` after each.

let syncedCount = 10_000
let bulkPageSize = 2_000

func book(_ id: String, title: String, lastModified: Int64? = nil) -> Data {
    var fields = #""id":"\#(id)","title":"\#(title)","author_name":"Crash Probe","finished":false"#
    if let lastModified { fields += #","last_modified":\#(lastModified)"# }
    return Data("{\(fields)}".utf8)
}

/// Writes a line straight to the file descriptor (no stdio buffer a kill could lose).
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func loadInBulk(_ store: ShelfStore, pages: Int) throws {
    let load = BulkLoad()
    report("ready")
    for k in 0..<pages {
        let page = (0..<bulkPageSize).map { i in
            RawRecord(id: "p-\(k)-\(i)", lastModified: Int64(k * bulkPageSize + i + 1),
                      json: book("p-\(k)-\(i)", title: "Pulled \(k) \(i)", lastModified: Int64(k * bulkPageSize + i + 1)))
        }
        try store.write(bulkLoad: load) { tx in
            try tx.storePulled(page, in: .books, morePagesFollow: true)
        }
        report("committed \(k)")
    }
    report("finished")
}

func run() throws {
    let arguments = CommandLine.arguments
    guard arguments.count == 3 || (arguments.count == 4 && arguments[3] == "bulk"), let batches = Int(arguments[2]) else {
        FileHandle.standardError.write(Data("usage: StorageCrashProbe <database path> <batches> [bulk]\n".utf8))
        exit(64)
    }
    let store = try ShelfStore(location: .file(URL(fileURLWithPath: arguments[1])))
    if arguments.count == 4 {
        try loadInBulk(store, pages: batches)
        return
    }

    try store.write { tx in
        for n in 0..<syncedCount {
            let lastModified = Int64(1_000 + n)
            let remote = RawRecord(id: "r-\(n)", lastModified: lastModified, json: book("r-\(n)", title: "Synced \(n)", lastModified: lastModified))
            try tx.storePulled(remote, in: .books)
        }
    }
    report("ready")

    store.setOperationOrigin("crash probe")
    for k in 0..<batches {
        try store.edit { tx in
            for i in 0..<100 {
                try tx.saveLocal(.books, id: "b-\(k)-\(i)", json: book("b-\(k)-\(i)", title: "Created \(k) \(i)"))
            }
            for i in 0..<50 {
                try tx.saveLocal(.books, id: "b-\(k)-\(i)", json: book("b-\(k)-\(i)", title: "Edited \(k) \(i)"))
            }
            for i in 90..<100 {
                try tx.deleteLocal(.books, id: "b-\(k)-\(i)")
            }
            for n in (10 * k)..<(10 * k + 10) where n < 5_000 {
                try tx.saveLocal(.books, id: "r-\(n)", json: book("r-\(n)", title: "Locally edited \(n) in \(k)"))
            }
            for n in (5_000 + 5 * k)..<(5_000 + 5 * k + 5) where n < syncedCount {
                try tx.deleteLocal(.books, id: "r-\(n)")
            }
        }
        report("committed \(k)")
    }
    report("finished")
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("StorageCrashProbe: \(error)\n".utf8))
    exit(1)
}
