import Terminal
import Testing

/// The exact bytes a change of frame costs.
@Suite("Frame diff")
struct FrameDiffTests {
    let size = TerminalSize(rows: 3, columns: 10)

    func frame(_ writes: (inout Frame) -> Void) -> Frame {
        var frame = Frame(size: size)
        writes(&frame)
        return frame
    }

    func output(_ previous: Frame?, _ next: Frame, _ mode: ColorMode = .color) -> String {
        String(decoding: FrameDiff.output(from: previous, to: next, colorMode: mode), as: UTF8.self)
    }

    @Test func anUnchangedFrameCostsNothing() {
        let same = frame { $0.write("Shelf", row: 1, column: 2, style: .bold) }
        #expect(output(same, same) == "")
    }

    @Test func oneChangedCellIsAMoveAndTheCell() {
        let next = frame { $0.write("x", row: 1, column: 2) }
        #expect(output(Frame(size: size), next) == "\u{1B}[2;3Hx")
        let firstColumn = frame { $0.write("x", row: 2, column: 0) }
        #expect(output(Frame(size: size), firstColumn) == "\u{1B}[3Hx")
    }

    @Test func styleIsSetOnlyWhereItChangesAndResetAtTheEnd() {
        let next = frame {
            $0.write("ab", row: 0, column: 0, style: .bold)
            $0.write("c", row: 0, column: 2, style: .bold)
            $0.write("d", row: 0, column: 3, style: Style(foreground: .red, underlined: true))
        }
        #expect(output(Frame(size: size), next) == "\u{1B}[H\u{1B}[0;1mabc\u{1B}[0;4;31md\u{1B}[0m")
    }

    @Test func nearbyChangesAreOneRunAndDistantOnesAMoveForward() {
        let near = frame {
            $0.write("a", row: 0, column: 2)
            $0.write("b", row: 0, column: 5)
        }
        #expect(output(Frame(size: size), near) == "\u{1B}[1;3Ha  b")
        let far = frame {
            $0.write("a", row: 0, column: 0)
            $0.write("b", row: 0, column: 9)
            $0.write("c", row: 1, column: 0)
        }
        // After the last column the cursor may wait to wrap: the next move is absolute.
        #expect(output(Frame(size: size), far) == "\u{1B}[Ha\u{1B}[8Cb\u{1B}[2Hc")
    }

    @Test func wideCharactersAreWrittenWholeOnce() {
        let before = frame { $0.write("本棚", row: 0, column: 0) }
        #expect(output(Frame(size: size), before) == "\u{1B}[H本棚")
        // Only the second character changes: the run starts at its first cell.
        let after = frame { $0.write("本箱", row: 0, column: 0) }
        #expect(output(before, after) == "\u{1B}[1;3H箱")
        // Half of it overwritten: the other half is blanked on screen too.
        let half = frame {
            $0.write("本棚", row: 0, column: 0)
            $0.write("x", row: 0, column: 3)
        }
        #expect(output(before, half) == "\u{1B}[1;3H x")
    }

    @Test func aFirstFrameIsAFullRedrawFromAClearedScreen() {
        let next = frame { $0.write("hi", row: 1, column: 1) }
        #expect(output(nil, next) == "\u{1B}[0m\u{1B}[H\u{1B}[2J\u{1B}[2;2Hhi")
    }

    @Test func aNewSizeIsAFullRedraw() {
        let small = frame { $0.write("hi", row: 0, column: 0) }
        var large = Frame(size: TerminalSize(rows: 4, columns: 12))
        large.write("hi", row: 0, column: 0)
        #expect(output(small, large) == "\u{1B}[0m\u{1B}[H\u{1B}[2Jhi")
    }

    @Test func theWriterRedrawsWholeAfterInvalidation() {
        var writer = ScreenWriter(colorMode: .color)
        let first = frame { $0.write("ab", row: 0, column: 0) }
        let second = frame { $0.write("ac", row: 0, column: 0) }
        #expect(writer.output(for: first) == FrameDiff.output(from: nil, to: first, colorMode: .color))
        #expect(String(decoding: writer.output(for: second), as: UTF8.self) == "\u{1B}[1;2Hc")
        writer.invalidate()
        #expect(writer.output(for: second) == FrameDiff.output(from: nil, to: second, colorMode: .color))
        #expect(writer.redrawShown() == FrameDiff.output(from: nil, to: second, colorMode: .color))
    }

    @Test func monochromeOutputCarriesNoColour() {
        let next = frame {
            $0.fill(row: 0, style: Style(background: .blue))
            $0.write("warn", row: 1, column: 0, style: Style(foreground: .red))
            $0.write("dim", row: 2, column: 0, style: .dim)
        }
        let text = output(nil, next, .monochrome)
        #expect(!text.contains(";3") && !text.contains(";4") && !text.contains("[0;2m"))
        #expect(text.contains("\u{1B}[0;7m          "))
        #expect(text.contains("\u{1B}[0;1mwarn"))
    }
}
