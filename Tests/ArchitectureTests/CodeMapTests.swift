import Foundation
import TestSupport
import Testing

/// ARCHITECTURE.md and the module READMEs name code in backticks; `make check` runs
/// `Scripts/check-code-map.py`, which resolves every such name against the sources. These
/// run it against the real documents, and against a small fixture package
/// (`Fixtures/code-map`) whose `stale.md` names code that is gone, so the checker itself is
/// proven to fail, naming each stale name with its file and line.
@Suite("Code map")
struct CodeMapTests {
    @Test func everyNameInTheMapResolves() throws {
        let result = try run("python3", [checker])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("code map: all ") && result.stdout.hasSuffix(" resolve\n"))
    }

    @Test func aMapWhoseNamesAllResolvePasses() throws {
        let result = try run("python3", [checker, "--root", fixture.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "code map: all 17 names in 2 documents resolve\n")
    }

    /// Each kind of drift: a type left only in a comment, a member and a case that are gone,
    /// a member of another type, labels that changed, a file and a folder that moved.
    @Test func everyNameThatIsGoneIsReported() throws {
        let result = try run("python3", [checker, "--root", fixture.path, "stale.md"])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").map(String.init) == [
            "code map: stale.md:3: `Sprocket`: Sprocket not found in the code",
            "code map: stale.md:4: `Widget.wobbles`: wobbles not found in the code",
            "code map: stale.md:4: `.stopped`: stopped not found in the code",
            "code map: stale.md:5: `WidgetState.colour`: colour is declared nowhere in WidgetState's files",
            "code map: stale.md:6: `Widget.spin(_:turns:)`: no declaration of spin takes (_:turns:) (declared: spin(_:speed:))",
            "code map: stale.md:7: `Modules/Widgets/Sprocket.swift`: no such file or folder",
            "code map: stale.md:7: `Tests/SprocketTests/`: no such file or folder",
            "code map: 7 of 7 names in 1 document are gone",
        ])
    }

    /// `make check` itself fails on a stale name.
    @Test func makeCheckFailsOnAStaleName() throws {
        let result = try run(
            "make",
            ["--no-print-directory", "-C", FixtureFiles.repositoryRoot.path, "check",
             "CODE_MAP_ARGS=--root \(fixture.path) stale.md"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("code map: stale.md:4: `Widget.wobbles`: wobbles not found in the code"))
    }

    private var checker: String {
        FixtureFiles.repositoryRoot.appendingPathComponent("Scripts/check-code-map.py").path
    }

    private var fixture: URL { FixtureFiles.url("code-map") }

    /// Runs `executable` (found on PATH) to its end; its output goes to files, so no pipe
    /// fills while the other is read.
    private func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("code-map-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stdoutFile = folder.appendingPathComponent("stdout"), stderrFile = folder.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
        FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        process.standardOutput = try FileHandle(forWritingTo: stdoutFile)
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus,
                try String(contentsOf: stdoutFile, encoding: .utf8),
                try String(contentsOf: stderrFile, encoding: .utf8))
    }
}
