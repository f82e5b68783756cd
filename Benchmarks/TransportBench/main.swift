// TransportBench: N sequential GETs of one URL through Shelf's CurlTransport, timed.
//
//     TransportBench <url> [count=200]
//
// Prints wall-clock and CPU time (user + system) for the whole run, so the transport
// can be compared with the curl CLI doing the same (Benchmarks/transport-vs-curl.sh).
// When the body is a Kinto list page, it also times reading it with RecordPageScanner
// (the sync path) against JSONDecoder into BookDTOs.
import Foundation
import RecordDTOs
import Records
import Services

// MARK: - Arguments

let arguments = CommandLine.arguments
guard arguments.count >= 2, arguments.count <= 3, let count = arguments.count == 3 ? Int(arguments[2]) : 200, count > 0 else {
    FileHandle.standardError.write(Data("usage: TransportBench <url> [count=200]\n".utf8))
    exit(64)
}
let url = arguments[1]

// MARK: - CPU time

func cpuSeconds() -> (user: Double, system: Double) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return (seconds(usage.ru_utime), seconds(usage.ru_stime))
}

// MARK: - Run

let transport = CurlTransport()
let request = HTTPRequest(method: .get, url: url)
let cpuBefore = cpuSeconds()
let started = ContinuousClock.now
var totalBytes = 0
var lastBody = Data()
do {
    for _ in 0..<count {
        let response = try await transport.send(request)
        guard response.status == 200 else {
            FileHandle.standardError.write(Data("TransportBench: HTTP \(response.status) from \(url)\n".utf8))
            exit(1)
        }
        totalBytes += response.body.count
        lastBody = response.body
    }
} catch {
    FileHandle.standardError.write(Data("TransportBench: \(error)\n".utf8))
    exit(1)
}
let wall = ContinuousClock.now - started
let cpuAfter = cpuSeconds()
let user = cpuAfter.user - cpuBefore.user
let system = cpuAfter.system - cpuBefore.system
let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18

print(String(
    format: "TransportBench: %d GETs, %.1f MB, wall %.3f s, cpu %.3f s (user %.3f, sys %.3f), %.2f ms/request",
    count, Double(totalBytes) / 1_000_000, wallSeconds, user + system, user, system, wallSeconds * 1000 / Double(count)))

// MARK: - Reading the page

/// Milliseconds per run of `body`, the best of `runs`.
func bestMilliseconds(runs: Int = 10, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        best = min(best, Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    return best
}

struct BookPage: Decodable { let data: [BookDTO] }

if let records = try? RecordPageScanner.scan(lastBody) {
    let megabytes = Double(lastBody.count) / 1_000_000
    let scan = try bestMilliseconds { _ = try RecordPageScanner.scan(lastBody) }
    print(String(format: "RecordPageScanner: %d records in %.2f ms (%.0f MB/s)", records.count, scan, megabytes / scan * 1000))
    if (try? JSONDecoder().decode(BookPage.self, from: lastBody)) != nil {
        let decode = try bestMilliseconds(runs: 3) { _ = try JSONDecoder().decode(BookPage.self, from: lastBody) }
        print(String(format: "JSONDecoder [BookDTO]: %.2f ms (%.0f MB/s)", decode, megabytes / decode * 1000))
    }
}
