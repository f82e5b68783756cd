import Testing
import TestSupport
@testable import Storage

@Suite("shelf_contains: instr(text, part) > 0 in one call")
struct TextContainsFunctionTests {
    /// Texts and parts where a first byte repeats, a match sits at either end, a part is
    /// longer than its text, or characters take several bytes.
    static let cases: [(String, String)] = [
        ("ursula k. le guin", "ursula"), ("ursula k. le guin", "guin"), ("ursula k. le guin", "le g"),
        ("ursula k. le guin", "guinn"), ("aaaab", "aaab"), ("aaaa", "aaab"), ("ab", "abc"), ("", "a"), ("abc", ""), ("", ""),
        ("café crème", "é c"), ("café crème", "e c"), ("tōkyō monogatari", "kyō"), ("tōkyō", "ō"), ("日本語の本", "語の"),
        ("日本語の本", "本語"), ("📚 books", "📚"), ("books 📚", "s 📚"), ("dune\u{1F}frank herbert", "dune\u{1F}f"),
        ("dune\u{1F}frank herbert", "e\u{1F}"), ("zzyzx", "zzyzx"), ("zzyzx", "zyx"),
    ]

    @Test func itAnswersAsInstrDoes() throws {
        let store = try ShelfStore.testStore()
        for (text, part) in Self.cases {
            let (contains, instr) = try store.read { reader in
                try reader.connection.queryFirst(
                    "SELECT \(TextContainsFunction.name)(?1, ?2), instr(?1, ?2) > 0", [.text(text), .text(part)], operation: "compare"
                ) { row in (row.int(0), row.int(1)) }
            } ?? (-1, -1)
            #expect(contains == instr, "'\(part)' in '\(text)'")
        }
    }

    @Test func nullGivesNullAsInstrDoes() throws {
        let store = try ShelfStore.testStore()
        let answers = try store.read { reader in
            try reader.connection.queryFirst(
                "SELECT \(TextContainsFunction.name)(NULL, 'a') IS NULL, \(TextContainsFunction.name)('a', NULL) IS NULL",
                operation: "compare") { row in [row.int(0), row.int(1)] }
        }
        #expect(answers == [1, 1])
    }

    @Test func someMatchesAndMisses() {
        #expect(contains("the left hand of darkness", "hand"))
        #expect(contains("ursula", "ursula"))
        #expect(!contains("ursul", "ursula"))
        #expect(!contains("uuuuu", "uv"))
        #expect(contains("anything", ""))
    }

    private func contains(_ text: String, _ part: String) -> Bool {
        let text = Array(text.utf8), part = Array(part.utf8)
        return text.withUnsafeBufferPointer { t in part.withUnsafeBufferPointer { p in TextContainsFunction.contains(t, p) } }
    }
}
