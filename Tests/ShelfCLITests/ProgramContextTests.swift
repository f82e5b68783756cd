import Foundation
import Testing
import TestSupport

/// What an in-process run takes from its `ProgramContext` rather than from the process:
/// the clock, the working directory, the console's answers.
@Suite("shelf: the program's context")
struct ProgramContextTests {
    let sandbox: ShelfSandbox

    init() throws {
        sandbox = try ShelfSandbox()
    }

    @Test func theManPagesDateIsTheProgramsClock() async throws {
        // 2031-03-07T00:00:00Z: not today, so the date can only be the injected clock's.
        let page = try await sandbox.run(["--generate-man"], now: { Date(timeIntervalSince1970: 1_930_608_000) }).stdout
        #expect(page.contains(#""2031\-03\-07""#), "\(page.prefix(300))")
    }

    @Test func anExportIsStampedWithTheProgramsClock() async throws {
        #expect(try await sandbox.run("book", "add", "--title", "Dune", "--author", "Frank Herbert").status == 0)
        let export = try await sandbox.run(["export"], now: { Date(timeIntervalSince1970: 1_930_608_000) })
        #expect(export.status == 0, "\(export)")
        #expect(try export.json()["exportedAt"] as? String == "2031-03-07T00:00:00Z", "\(export.stdout.prefix(200))")
    }

    /// The store a command opens stamps with the program's clock, not the system's: the
    /// clock reaches the store through the account's wiring.
    @Test func aWriteIsStampedWithTheProgramsClock() async throws {
        let add = try await sandbox.run(["book", "add", "--title", "Dune", "--author", "Frank Herbert"], now: { Date(timeIntervalSince1970: 1_930_608_000) })
        #expect(add.status == 0, "\(add)")
        let history = try #require(try await sandbox.run("--json", "history").json()["operations"] as? [[String: Any]])
        #expect(history.last?["madeAt"] as? String == "2031-03-07T00:00:00Z", "\(history)")
    }

    @Test func todayIsTheProgramsClocksDay() async throws {
        // Noon UTC, so the day is the same in any time zone the tests run in.
        let noon = Date(timeIntervalSince1970: 1_930_608_000 + 43_200)
        let read = try await sandbox.run(["--json", "read", "25"], now: { noon })
        #expect(read.status == 0, "\(read)")
        #expect(try read.json()["day"] as? String == "2031-03-07", "\(read)")
    }

    @Test func aRelativePathStartsAtTheWorkingDirectory() async throws {
        #expect(try await sandbox.run("book", "add", "--title", "Dune", "--author", "Frank Herbert").status == 0)
        let run = try await sandbox.run("-q", "export", "--output", "library.json")
        #expect(run.status == 0, "\(run)")
        let written = try String(contentsOf: sandbox.root.appendingPathComponent("library.json"), encoding: .utf8)
        #expect(written.contains("Frank Herbert"))
    }

    @Test func colourFollowsWhatTheConsoleSaysStandardOutputIs() async throws {
        #expect(try await sandbox.run("book", "add", "--title", "Dune", "--author", "Frank Herbert").status == 0)
        let onTerminal = try await sandbox.run(["books"], terminals: [.output], size: (80, 24))
        #expect(onTerminal.stdout.contains("\u{1B}["), "\(onTerminal)")
        let offTerminal = try await sandbox.run(["books"])
        #expect(!offTerminal.stdout.contains("\u{1B}"), "\(offTerminal)")
    }
}
