import Foundation
import TestSupport
import Testing

/// The module graph is checked by a test, not by goodwill: these run
/// `Scripts/check-module-graph.py` against the real package, and against recorded
/// manifests and a small fixture package with known violations, so the checker itself
/// is proven to fail — on declared edges and on every source file's `import` lines.
@Suite("Module graph")
struct ModuleGraphTests {
    @Test func thePackageFollowsTheAllowList() throws {
        let result = try runChecker()
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func anAllowedGraphPasses() throws {
        let result = try runChecker("--manifest-only", "--dump", FixtureFiles.url("module-graph/allowed.json").path)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func everyKindOfForbiddenEdgeIsReported() throws {
        let result = try runChecker("--manifest-only", "--dump", FixtureFiles.url("module-graph/forbidden.json").path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("Storage -> Services: not allowed (Storage may import: CSQLite, Domain, PrivateFiles, Records)"))
        #expect(result.stderr.contains("Presentation -> shelf: nothing may depend on an app"))
        #expect(result.stderr.contains("shelf -> Services: an app depends only on its commands library (a module named …Commands)"))
        #expect(result.stderr.contains("TestSupport -> shelf: nothing may depend on an app"))
        #expect(result.stderr.contains("ImportingTests -> shelf: a test may run an app as a process, never import it"))
        #expect(result.stderr.contains("Presentation -> TestSupport: only tests may depend on test support"))
        #expect(result.stderr.contains("Gadgets: module has no row in README.md's module graph"))
    }

    /// A module reachable through another dependency still builds when a file imports it
    /// (`--explicit-target-dependency-import-check` counts it as declared): only the
    /// check of each import line stops it. Each violation names its file and line.
    @Test func everyForbiddenImportLineIsReported() throws {
        let root = FixtureFiles.url("module-graph/imports")
        let result = try runChecker("--root", root.path, "--dump", root.appendingPathComponent("dump.json").path)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init).filter { $0.contains(".swift:") }
        #expect(lines.sorted() == [
            "module graph: Apps/shelf/main.swift:4: shelf imports Services, which is not a declared dependency of shelf in Package.swift",
            "module graph: Modules/Presentation/Model.swift:5: Presentation imports Storage: not allowed (Presentation may import: Domain)",
            "module graph: Modules/Storage/Store.swift:4: Storage imports Services: not allowed (Storage may import: Domain)",
            "module graph: Tests/ModelTests/ModelTests.swift:3: ModelTests imports shelf: nothing may import an app",
        ])
    }

    /// `make check` itself — the command CI and the README give — fails on a forbidden import.
    @Test func makeCheckFailsOnAForbiddenImport() throws {
        let root = FixtureFiles.url("module-graph/imports")
        let result = try run(
            "/usr/bin/env",
            ["make", "--no-print-directory", "-C", FixtureFiles.repositoryRoot.path, "check",
             "CHECK_ARGS=--root \(root.path) --dump \(root.appendingPathComponent("dump.json").path)"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("Modules/Presentation/Model.swift:5: Presentation imports Storage: not allowed"))
    }

    /// Key material has one way in: libsodium only through Encryption, and Encryption only
    /// from Sync (which seals and opens at the wire) and ShelfCommands (which reads the
    /// passphrase for `shelf encryption`), so no other layer can seal, open or hold keys.
    /// (PrivateFiles writes the key file's bytes as it writes any private file, and
    /// imports nothing of ours.)
    @Test func encryptionKeepsItsNarrowBoundary() throws {
        let rows = try allowList()
        #expect(rows["Encryption"] == ["CSodium", "PrivateFiles", "Records", "Vocabulary"])
        #expect(rows["PrivateFiles"] == [])
        #expect(rows.filter { $0.value.contains("Encryption") }.keys.sorted() == ["ShelfCommands", "Sync"])
        #expect(rows.filter { $0.value.contains("CSodium") }.keys.sorted() == ["Encryption"])
    }

    /// The words every layer shares sit below the entities and ports, and the modules that
    /// need only those words import them alone: a change to an entity or a port (Domain)
    /// then never rebuilds the transport, the cryptography, the parser or the worker's command.
    @Test func theVocabularyStandsBelowTheEntities() throws {
        let rows = try allowList()
        #expect(rows["Vocabulary"] == [])
        #expect(rows["Domain"] == ["Vocabulary"])
        for module in ["ArgumentParsing", "Encryption", "Services", "Terminal", "WorkerCommands"] {
            #expect(rows[module]?.contains("Vocabulary") == true, "\(module) speaks the vocabulary")
            #expect(rows[module]?.contains("Domain") == false, "\(module) must not import Domain")
        }
    }

    /// The wire shape stands beside the entities, not above them: Records speaks Vocabulary
    /// alone, so the transport, the store's wire side and the cryptography build without
    /// Domain. The DTOs that map records to entities sit above both, and only the layers
    /// that decode records (Repositories, Sync) and the commands see them: never Services,
    /// Storage, Encryption or Presentation.
    @Test func theWireShapeStandsBesideTheEntities() throws {
        let rows = try allowList()
        #expect(rows["Records"] == ["Vocabulary"])
        #expect(rows["RecordDTOs"] == ["Domain", "Records"])
        #expect(rows.filter { $0.value.contains("RecordDTOs") }.keys.sorted() == ["Repositories", "ShelfCommands", "Sync"])
    }

    /// The terminal layer knows no view model and no store: it may import Vocabulary alone
    /// (for the width rule and safe text), so it builds without the store, the network or the
    /// sync engine. Only the live screens draw on it, and the commands library that runs
    /// them; the live screens never reach below Presentation, nor into Screens for width.
    @Test func terminalStaysBelowTheInterface() throws {
        let rows = try allowList()
        #expect(rows["Terminal"] == ["Vocabulary"])
        #expect(rows.filter { $0.value.contains("Terminal") }.keys.sorted() == ["LiveScreens", "ShelfCommands"])
        #expect(rows["LiveScreens"] == ["Domain", "Presentation", "Terminal"])
    }

    /// README.md's table as the checker reads it (its `allow_list`): module → may import.
    private func allowList() throws -> [String: [String]] {
        let script = FixtureFiles.repositoryRoot.appendingPathComponent("Scripts/check-module-graph.py").path
        let readme = FixtureFiles.repositoryRoot.appendingPathComponent("README.md").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import importlib.util, json, pathlib, sys
            spec = importlib.util.spec_from_file_location("graph", sys.argv[1])
            graph = importlib.util.module_from_spec(spec); spec.loader.exec_module(graph)
            print(json.dumps({k: sorted(v) for k, v in graph.allow_list(pathlib.Path(sys.argv[2])).items()}))
            """, script, readme]
        let stdout = Pipe()
        process.standardOutput = stdout
        try process.run()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONDecoder().decode([String: [String]].self, from: data)
    }

    private func runChecker(_ arguments: String...) throws -> (status: Int32, stderr: String) {
        try run("/usr/bin/env", ["python3", FixtureFiles.repositoryRoot.appendingPathComponent("Scripts/check-module-graph.py").path] + arguments)
    }

    private func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
