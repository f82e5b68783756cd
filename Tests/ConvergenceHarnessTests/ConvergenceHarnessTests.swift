import Foundation
import Testing
import TestSupport

// MARK: - ConvergenceHarnessTests

/// The short run of the convergence harness (`Tests/FaultHarness`): randomized
/// histories of two devices through the built `shelf` and `shelf-sync`, against a real
/// Kinto behind the fault proxy, checked against the model of acknowledged edits.
/// `make soak` runs the long version; a failure here prints the seed, the findings and
/// the history, and `make soak SEED=… STEPS=… MODE=…` replays it.
///
/// Serialized: each run starts its own Kinto and proxy, and the machine has two cores.
@Suite("Convergence harness", .serialized)
struct ConvergenceHarnessTests {
    /// The harness's own tests, among them runs with a divergence injected that must
    /// fail: a checker that cannot fail proves nothing.
    @Test func theHarnessNoticesADivergence() async throws {
        let run = try await Harness.run(["-m", "unittest", "discover", "-s", Harness.folder.path, "-p", "test_harness.py"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("OK"), "\(run.stderr)")
        #expect(!run.stderr.contains("skipped"), "the self-tests against the real binaries must run: \(run.stderr)")
    }

    /// Latency only: concurrent edits of different fields, syncs in the background
    /// while the CLI writes, creates and deletes before a sync.
    @Test func calmHistoriesConverge() async throws {
        try await Harness.expectConvergence(mode: "calm", seeds: [1], steps: 40)
    }

    /// Latency, and `shelf-sync` killed with SIGKILL at random moments — some after
    /// Kinto applied a push the worker had no time to record.
    @Test func historiesWithKilledSyncsConverge() async throws {
        try await Harness.expectConvergence(mode: "kills", seeds: [1, 2], steps: 40)
    }

    /// Kills, replies lost or cut after Kinto applied the request, connections reset
    /// before it saw them, and (seed 3) the server forgetting a collection.
    @Test func historiesWithLostRepliesConverge() async throws {
        try await Harness.expectConvergence(mode: "faults", seeds: [3, 11], steps: 40)
    }

    /// End-to-end encryption turned on part-way through: after the first barrier one
    /// device runs `shelf encryption enable` over the account's data and syncs, the other
    /// keeps editing — its syncs leave the account alone until it joins before the next
    /// barrier — and from that barrier on the server may hold sealed records only, with
    /// kills and lost replies as in `faults`; in seed 3 the server forgets a collection
    /// right before encryption is turned on.
    @Test func anAccountEncryptedPartWayThroughConverges() async throws {
        try await Harness.expectConvergence(
            mode: "faults", seeds: [3], steps: 30,
            extraArguments: ["--encrypted", "--encrypt-probability", "1", "--encrypt-after-barrier"])
    }

    /// Kinto's operator writes the encrypted account by hand between the devices' steps,
    /// straight against Kinto: older sealed versions put back, records forged in the clear,
    /// records deleted one by one or all at once, the keyring rolled back, altered or
    /// deleted — with kills and lost replies as in `faults`. The devices refuse it all and
    /// put their versions back (the reader runs `shelf encryption put-back` at barriers
    /// after deletions); no forged or replayed content may reach a device, and no reader's
    /// record may be lost.
    @Test func aHostileOperatorReachesNoDevice() async throws {
        try await Harness.expectConvergence(
            mode: "faults", seeds: Harness.hostileSeeds, steps: 30,
            extraArguments: ["--encrypted", "--encrypt-probability", "0", "--hostile", "--operator-probability", "0.25"])
    }

    /// Everything `faults` has, and bursts: two or three devices write, then push into
    /// the same collection at the same moment while the third syncs in a loop — on Kinto
    /// with PostgreSQL (`production.ini`), where two batches into one collection can
    /// commit out of stamp order and a pull between the commits must still miss nothing.
    /// Every device must end with exactly the server's records. (The race is timing: seed 4
    /// alone caught the client before the fix in 5 of 7 runs, hence a second seed.)
    @Test func concurrentWritersConverge() async throws {
        try #require(
            FileManager.default.fileExists(atPath: "/usr/lib/postgresql"),
            "PostgreSQL's server is installed by 'make setup'")
        try await Harness.expectConvergence(mode: "concurrent", seeds: [4, 3], steps: 24, devices: 3, server: "production")
    }
}

// MARK: - Harness

/// Runs `Tests/FaultHarness` with the project's Python (the one `make setup` installs
/// Kinto into) and the binaries this test build built.
enum Harness {
    static let folder = FixtureFiles.repositoryRoot.appendingPathComponent("Tests/FaultHarness")
    /// The hostile histories of the short run: between them they hold every kind of
    /// operator action (Tests/FaultHarness/README.md lists what each does).
    static let hostileSeeds = [1, 13]

    /// Waits off Swift's cooperative pool: a harness run takes tens of seconds.
    static func run(_ arguments: [String]) async throws -> ProcessResult {
        let inherited = ProcessInfo.processInfo.environment
        var environment = [
            "PATH": inherited["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8",
            "SHELF_BINARY": BuiltProduct.url("shelf").path, "SHELF_SYNC_BINARY": BuiltProduct.url("shelf-sync").path,
        ]
        environment["TMPDIR"] = inherited["TMPDIR"]
        return try await ProcessRunner.runInBackground(KintoServer.python, arguments, environment: environment)
    }

    static func expectConvergence(mode: String, seeds: [Int], steps: Int, devices: Int = 2, server: String = "memory",
                                  extraArguments: [String] = [],
                                  sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var arguments = [folder.appendingPathComponent("harness.py").path,
                         "--mode", mode, "--steps", "\(steps)", "--devices", "\(devices)", "--server", server,
                         "--latency-ms", "20", "--jitter-ms", "5",
                         "--shelf", BuiltProduct.url("shelf").path,
                         "--shelf-sync", BuiltProduct.url("shelf-sync").path,
                         "--save-dir", FileManager.default.temporaryDirectory.appendingPathComponent("shelf-harness").path]
        for seed in seeds { arguments += ["--seed", "\(seed)"] }
        arguments += extraArguments
        let run = try await run(arguments)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stdout.contains(" PASS ("), "\(run.stdout)", sourceLocation: sourceLocation)
    }
}
