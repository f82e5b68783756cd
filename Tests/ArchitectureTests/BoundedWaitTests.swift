import Foundation
import Testing
import TestSupport

// MARK: - BoundedWaitTests

/// Every wait ends, in the tests too: a program a test waits for is ended at its
/// deadline, and the whole run at `make test`'s (`Scripts/with-deadline.py`). Both say
/// which processes were still running, so a hang in CI reads as a finding, not as a
/// job killed at its limit with nothing said.
@Suite("Bounded waits in the tests")
struct BoundedWaitTests {
    /// A program that would outlive its deadline — and a child it started, holding the
    /// pipes — is ended, and stderr names both.
    @Test func aProgramPastItsDeadlineIsEndedWithItsChildrenAndSaysSo() async throws {
        let started = ContinuousClock.now
        let result = try await ProcessRunner.runInBackground(
            URL(fileURLWithPath: "/bin/bash"), ["-c", "sleep 300 & sleep 301; echo never"],
            environment: ["PATH": "/usr/bin:/bin"], deadlineSeconds: 1)
        let waited = ContinuousClock.now - started
        // NB: well below the 300 s the sleeps would take, and loose enough for a full run,
        // where this test's await may resume a minute late on a busy cooperative pool.
        #expect(waited < .seconds(200), "the wait ended at the deadline, not when sleep did: \(waited)")
        #expect(result.status != 0)
        #expect(!result.stdout.contains("never"))
        #expect(result.stderr.contains("[test deadline] bash"), "\(result.stderr)")
        #expect(result.stderr.contains("sleep 300") && result.stderr.contains("sleep 301"), "\(result.stderr)")
    }

    /// A program that ends in time is left alone and nothing is added to what it said.
    @Test func aProgramWithinItsDeadlineIsUntouched() async throws {
        let result = try await ProcessRunner.runInBackground(
            URL(fileURLWithPath: "/bin/bash"), ["-c", "echo out; echo err >&2; exit 3"],
            environment: ["PATH": "/usr/bin:/bin"], deadlineSeconds: 30)
        #expect(result.status == 3)
        #expect(result.stdout == "out\n")
        #expect(result.stderr == "err\n")
    }

    /// The suite's own deadline: the command's processes are listed and ended, exit 124.
    @Test func theSuitesDeadlineListsWhatStillRanAndEndsIt() throws {
        let script = FixtureFiles.repositoryRoot.appendingPathComponent("Scripts/with-deadline.py")
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"), [script.path, "1", "/bin/bash", "-c", "sleep 302 & sleep 303"],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 124)
        #expect(result.stderr.contains("still ran after 1 s"), "\(result.stderr)")
        #expect(result.stderr.contains("sleep 302") && result.stderr.contains("sleep 303"), "\(result.stderr)")
        let passed = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"), [script.path, "30", "/bin/bash", "-c", "exit 3"],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(passed.status == 3)
    }

    /// What `make test` prints after its deadline: the tests that started and never
    /// ended — a parameterized test's cases end with their test, the run is no test.
    @Test func theTestsThatNeverEndedAreNamed() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("unfinished-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        try Data("""
            ◇ Test run started.
            ◇ Test quick() started.
            ◇ Test hangs() started.
            ◇ Test table(_:) started.
            ◇ Test case passing 1 argument n → 1 to table(_:) started.
            ◇ Test skipped() started.
            ✔ Test quick() passed after 0.1 seconds.
            ✔ Test table(_:) with 2 test cases passed after 0.2 seconds.
            ➜ Test skipped() skipped: "no server"
            ◇ Test fails() started.
            ✘ Test fails() failed after 0.3 seconds with 1 issue.
            ✔ Test run with 5 tests in 1 suite passed after 1.0 seconds.

            """.utf8).write(to: output)
        let script = FixtureFiles.repositoryRoot.appendingPathComponent("Scripts/unfinished-tests.py")
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"), [script.path, output.path], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "hangs()\n")
    }
}
