import Domain
import Presentation
import Screens
import Testing
import TestSupport

/// A table never pads to an unbounded width: a cell longer than the maximum is cut
/// with "…", so one huge title does not widen every row.
@MainActor
@Suite("Rendering: cells are cut to a sane width")
struct CellTruncationTests {
    @Test(arguments: [
        ("a short title", "a short title"),
        (String(repeating: "x", count: 60), String(repeating: "x", count: 60)),
        (String(repeating: "x", count: 61), String(repeating: "x", count: 59) + "…"),
        (String(repeating: "y", count: 1_000_000), String(repeating: "y", count: 59) + "…"),
        (String(repeating: "森", count: 40), String(repeating: "森", count: 29) + "…"),
        ("line one\nline two", #"line one\nline two"#),
    ])
    func aLongCellIsCut(_ title: String, _ shown: String) async throws {
        let book = try Book(id: "b-1", title: title, author: "Someone")
        let model = BookSearchViewModel(service: FakeBookService(books: [book]))
        await model.search("", unfinishedOnly: false)

        let lines = LibraryScreen(model).renderText(.plain).split(separator: "\n")
        #expect(lines.count == 3, "a header, one row and the summary")
        #expect(lines[1].contains(shown))
        #expect(lines.allSatisfy { $0.count < 200 }, "\(lines.map(\.count))")
    }
}
