import Foundation
import TestSupport
import Testing

/// The module graph is checked by a test, not by goodwill: these run
/// `Scripts/check-module-graph.py` against the real manifest and against recorded
/// manifests with known violations, so the checker itself is proven to fail.
@Suite("Module graph")
struct ModuleGraphTests {
    @Test func thePackageFollowsTheAllowList() throws {
        let result = try runChecker()
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func anAllowedGraphPasses() throws {
        let result = try runChecker("--dump", FixtureFiles.url("module-graph/allowed.json").path)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func everyKindOfForbiddenEdgeIsReported() throws {
        let result = try runChecker("--dump", FixtureFiles.url("module-graph/forbidden.json").path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("Storage -> Services: not allowed (Storage may import: CSQLite, Domain)"))
        #expect(result.stderr.contains("Presentation -> shelf: nothing may depend on an app"))
        #expect(result.stderr.contains("TestSupport -> shelf: nothing may depend on an app"))
        #expect(result.stderr.contains("ImportingTests -> shelf: a test may run an app as a process, never import it"))
        #expect(result.stderr.contains("Presentation -> TestSupport: only tests may depend on test support"))
        #expect(result.stderr.contains("Gadgets: module has no row in README.md's module graph"))
    }

    private func runChecker(_ arguments: String...) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", FixtureFiles.repositoryRoot.appendingPathComponent("Scripts/check-module-graph.py").path] + arguments
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
