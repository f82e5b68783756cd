import Domain
import Foundation
import Presentation
@testable import Screens
import Testing
import TestSupport

/// Tables and text fit the terminal: no line wider than its width, counted in the
/// columns a terminal draws (glibc's `wcswidth`, not characters or bytes), the widest
/// column shrinking first.
@MainActor
@Suite("Rendering: output fits the terminal's width")
struct TerminalWidthTests {
    /// Books whose cells are long in every way a terminal counts differently: long
    /// ASCII, East Asian wide characters, combining accents, emoji.
    static func awkwardBooks() throws -> [Book] {
        [
            try Book(id: "3f2b9c1e-5d4a-4e7b-9a1c-2b3c4d5e6f70", title: "The Dispossessed: An Ambiguous Utopia, with an afterword and notes", author: "Ursula K. Le Guin"),
            try Book(id: "b-2", title: "ノルウェイの森 (Norwegian Wood), 上巻と下巻", author: "村上春樹 Haruki Murakami"),
            try Book(id: "b-3", title: "Cien años de soledad", author: "Gabriel Garcia Ma\u{301}rquez (combining accent)"),
            try Book(id: "b-4", title: "📚 Emoji 🐉 and flags 🇫🇷 in a title that goes on", author: "Someone", isFinished: true),
            try Book(id: "b-5", title: "Short", author: "Ann"),
        ]
    }

    func library() async throws -> BookSearchViewModel {
        let model = BookSearchViewModel(service: FakeBookService(books: try Self.awkwardBooks()))
        await model.search("", unfinishedOnly: false)
        return model
    }

    @Test(arguments: [10, 20, 40, 60, 80, 200])
    func noLineIsWiderThanTheTerminal(_ width: Int) async throws {
        let screen = LibraryScreen(try await library())
        for color in [false, true] {
            let text = screen.renderText(RenderOptions(color: color, width: width))
            for line in text.split(separator: "\n") {
                let plain = Self.strippingEscapes(String(line))
                #expect(Self.terminalColumns(plain) <= width, "\(width) columns: '\(plain)' is \(Self.terminalColumns(plain))")
                #expect(TextWidth.of(plain) == Self.terminalColumns(plain), "TextWidth agrees with wcswidth on '\(plain)'")
            }
        }
    }

    @Test func aWideTerminalShowsEveryCellWhole() async throws {
        let long = "The Dispossessed: An Ambiguous Utopia, with an afterword and notes"
        let text = LibraryScreen(try await library()).renderText(RenderOptions(width: 200))
        #expect(text.contains("3f2b9c1e-5d4a-4e7b-9a1c-2b3c4d5e6f70"))
        #expect(text.contains(long), "a 66-column title is whole on a 200-column terminal")
        for line in text.split(separator: "\n") { #expect(TextWidth.of(String(line)) <= 200) }
        // Without a terminal (a pipe), no cell is wider than 60 columns, as before.
        let piped = LibraryScreen(try await library()).renderText(.plain)
        #expect(!piped.contains(long))
        #expect(piped.contains(String(long.prefix(TextTable.maximumCellWidth - 1)) + "…"))
    }

    @Test func aHugeCellIsCutAtTheGuardEvenOnAWideTerminal() {
        var table = TextTable([TextTable.Column("TITLE")])
        table.append(String(repeating: "x", count: 100_000))
        let lines = table.lines(TextStyle(.plain), width: 5_000)
        #expect(TextWidth.of(lines[1]) == TextTable.cellGuard)
    }

    @Test func theWidestColumnShrinksFirst() {
        // ID 36, TITLE 60, AUTHOR 10: 106 + 4 of gaps. At 80 the title gives up 24 columns
        // to the id's width, then the two take turns for the last 6.
        #expect(TextTable.fitted([36, 60, 10], into: 80) == [33, 33, 10])
        // At 60 the title shrinks to the id's width, then both take turns.
        #expect(TextTable.fitted([36, 60, 10], into: 60) == [23, 23, 10])
        // Too narrow for every column's minimum: all shrink evenly, to one column at the least.
        #expect(TextTable.fitted([36, 60, 10], into: 10) == [2, 2, 2])
        #expect(TextTable.fitted([36, 60, 10], into: 3) == [1, 1, 1], "the lines are then cut at the width")
        #expect(TextTable.fitted([5, 5], into: 80) == [5, 5], "a table that fits is left alone")
    }

    @Test func aCutCellEndsInAnEllipsisAndKeepsItsColumnAligned() async throws {
        let lines = LibraryScreen(try await library()).renderText(RenderOptions(width: 60)).split(separator: "\n").map(String.init)
        let header = try #require(lines.first)
        let titleColumn = try #require(header.range(of: "TITLE")).lowerBound
        let offset = header.distance(from: header.startIndex, to: titleColumn)
        #expect(lines.contains { $0.contains("…") })
        for line in lines.dropFirst().dropLast() {
            // The title starts at the same terminal column on every row: the columns
            // before it are the id column and the gap, ending in two spaces.
            var columns = 0
            var prefix = ""
            for character in line where columns < offset {
                prefix.append(character)
                columns += TextWidth.width(of: character)
            }
            #expect(columns == offset && prefix.hasSuffix("  "), "'\(line)'")
        }
    }

    @Test func aSentenceWrapsAtSpacesInsteadOfRunningOff() {
        let wrapped = TextWidth.wrapped("3 of 100,000 books shown (matching \"ursula\"; the first 3 of 2035 matches)", width: 30)
        #expect(wrapped.allSatisfy { TextWidth.of($0) <= 30 }, "\(wrapped)")
        #expect(wrapped.joined(separator: " ") == "3 of 100,000 books shown (matching \"ursula\"; the first 3 of 2035 matches)")
        #expect(TextWidth.wrapped(String(repeating: "x", count: 25), width: 10) == ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"])
    }

    @Test func clippingKeepsColourCodesAndResetsThem() {
        let line = "\u{1B}[1mTITLE\u{1B}[0m  a long value"
        let clipped = TextWidth.clipped(line, width: 9)
        #expect(Self.strippingEscapes(clipped) == "TITLE  a ")
        #expect(clipped.hasSuffix("\u{1B}[0m"))
    }

    /// The measurement behind `TextWidth.of`: glibc's `wcwidth` in a UTF-8 locale, for the
    /// kinds of character titles hold.
    @Test(arguments: ["Le Guin", "村上春樹", "한국어", "Ma\u{301}rquez", "e\u{301}\u{302}", "ｆｕｌｌ", "📚🐉", "Zero\u{200B}width", "Ωμέγα", "Привет"])
    func textWidthCountsWhatTheTerminalDraws(_ text: String) {
        #expect(TextWidth.of(text) == Self.terminalColumns(text), "'\(text)': \(TextWidth.of(text)) vs wcswidth \(Self.terminalColumns(text))")
    }

    // MARK: Helpers

    static func terminalColumns(_ text: String) -> Int {
        TerminalColumns.of(text) ?? Int.max
    }

    static func strippingEscapes(_ text: String) -> String {
        TerminalColumns.strippingEscapes(text)
    }
}
