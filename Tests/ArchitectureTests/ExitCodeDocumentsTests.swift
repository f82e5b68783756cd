import Domain
import Foundation
import TestSupport
import Testing
import WorkerCommands

/// The exit codes are documented in more places than a person keeps in step by hand:
/// the tables in docs/cli.md and Apps/shelf-sync/README.md must say exactly what
/// `ExitCode.meaning` says, in the order the programs' help lists them.
@Suite("Exit code documents")
struct ExitCodeDocumentsTests {
    @Test func theCLIManualListsShelfsStatusesWithTheirMeanings() throws {
        let rows = try Self.tableRows(in: "docs/cli.md")
        #expect(rows == Self.rows(ExitCode.allCases.filter { $0 != .software }))
    }

    @Test func theWorkersReadmeListsItsStatusesWithTheirMeanings() throws {
        let rows = try Self.tableRows(in: "Apps/shelf-sync/README.md")
        #expect(rows == Self.rows(WorkerExitStatus.codes))
    }

    // MARK: - Reading the tables

    private static func rows(_ codes: [ExitCode]) -> [String] {
        codes.map { "| \($0.rawValue) | \($0.meaning) |" }
    }

    /// The rows between `<!-- exit-codes:begin -->` and `<!-- exit-codes:end -->`,
    /// without the header.
    private static func tableRows(in path: String) throws -> [String] {
        let text = try String(contentsOf: FixtureFiles.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- exit-codes:begin -->"), "no exit-code table in \(path)")
        let end = try #require(text.range(of: "<!-- exit-codes:end -->"), "no end of the exit-code table in \(path)")
        return text[begin.upperBound..<end.lowerBound]
            .split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("| ") && !$0.hasPrefix("| code |") }
    }
}
