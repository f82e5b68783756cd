import Foundation
import LiveScreens
import Testing
import TestSupport

// MARK: - The keys, written once

/// docs/ui.md's table of keys is `KeyBindings.all`, the table `?` shows: one owner, so the
/// manual cannot fall behind what the keys do.
@Suite("shelf ui: the keys in the manual")
struct KeyBindingsDocumentTests {
    @Test func theManualsTableIsTheKeyBindings() throws {
        let text = try String(contentsOf: FixtureFiles.repositoryRoot.appendingPathComponent("docs/ui.md"), encoding: .utf8)
        let start = try #require(text.range(of: "<!-- keys:start -->"))
        let end = try #require(text.range(of: "<!-- keys:end -->"))
        let rows = text[start.upperBound..<end.lowerBound].split(separator: "\n").dropFirst(2).map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let documented = rows.map { KeyBindings.Binding(keys: $0[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), action: $0[2]) }
        #expect(documented == KeyBindings.all)
    }
}
