import Terminal
import Testing

/// Text into cells: display width, clipping, wide characters and combining marks.
@Suite("Frame")
struct FrameTests {
    let size = TerminalSize(rows: 3, columns: 10)

    @Test func asciiFillsOneCellACharacterAndClipsAtTheEdge() {
        var frame = Frame(size: size)
        let end = frame.write("Shelf of books", row: 0, column: 2)
        #expect(end == 10)
        #expect(frame.line(0) == "  Shelf of")
        #expect(frame.line(1) == "          ")
    }

    @Test func wideCharactersTakeTwoCells() {
        var frame = Frame(size: size)
        let end = frame.write("本棚📚", row: 0, column: 0)
        #expect(end == 6)
        #expect(frame[0, 0].text == "本" && frame[0, 0].width == 2)
        #expect(frame[0, 1].text == "" && frame[0, 1].width == 0)
        #expect(frame[0, 4].text == "📚")
        #expect(frame.line(0) == "本棚📚    ")
    }

    @Test func aWideCharacterThatWouldStraddleTheEdgeIsLeftOut() {
        var frame = Frame(size: size)
        let end = frame.write("abcdefghi本", row: 1, column: 0)
        #expect(end == 9)
        #expect(frame.line(1) == "abcdefghi ")
        #expect(frame[1, 9] == .blank())
    }

    @Test func combiningMarksStayWithTheirCharacter() {
        var frame = Frame(size: size)
        #expect(frame.write("e\u{301}te\u{301}", row: 0, column: 0) == 3)
        #expect(frame[0, 0].text == "e\u{301}")
        #expect(frame[0, 2].text == "e\u{301}")
        // A mark written on its own joins the cell before it.
        frame.write("a", row: 1, column: 0)
        #expect(frame.write("\u{308}", row: 1, column: 1) == 1)
        #expect(frame[1, 0].text == "a\u{308}")
        #expect(frame[1, 1] == .blank())
        // …or the wide character before it.
        frame.write("本", row: 2, column: 0)
        frame.write("\u{301}", row: 2, column: 2)
        #expect(frame[2, 0].text == "本\u{301}")
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var frame = Frame(size: size)
        frame.write("本棚", row: 0, column: 0)
        frame.write("x", row: 0, column: 1)
        #expect(frame.line(0) == " x棚      ")
        frame.write("y", row: 0, column: 2)
        #expect(frame.line(0) == " xy       ")
        #expect(frame[0, 3] == .blank())
    }

    @Test func controlCharactersAreShownNotObeyed() {
        var frame = Frame(size: size)
        frame.write("a\u{1B}[2Jb\n", row: 0, column: 0)
        #expect(!frame.cells.contains { $0.text.unicodeScalars.contains { $0.value < 0x20 } })
        #expect(frame.line(0).hasPrefix("a"))
    }

    @Test func writesOutsideTheFrameChangeNothing() {
        var frame = Frame(size: size)
        frame.write("x", row: 3, column: 0)
        frame.write("x", row: -1, column: 0)
        frame.write("abc", row: 0, column: -2)
        #expect(frame.line(0) == "c         ")
        #expect(frame == {
            var expected = Frame(size: size)
            expected.write("c", row: 0, column: 0)
            return expected
        }())
    }

    @Test func fillPaintsBlanksInAStyle() {
        var frame = Frame(size: size)
        frame.fill(row: 1, column: 8, columns: 5, style: .reversed)
        #expect(frame[1, 7] == .blank())
        #expect(frame[1, 8] == .blank(.reversed) && frame[1, 9] == .blank(.reversed))
    }

    @Test func sizesAreBounded() {
        let huge = TerminalSize(rows: 65_535, columns: -3)
        #expect(huge.rows == TerminalSize.maximum && huge.columns == 0)
    }
}
