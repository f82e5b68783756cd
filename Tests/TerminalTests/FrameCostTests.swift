import Terminal
import Testing

/// What frames cost on the wire, printed as a measurement (`swift test --filter
/// FrameCostTests`); the bounds only catch a diff that stopped being a diff.
@Suite("Frame cost")
struct FrameCostTests {
    /// A screen like the interface's: a title bar, a list with one selected row, a status line.
    static func screen(_ size: TerminalSize, selected: Int = 3) -> Frame {
        var frame = Frame(size: size)
        frame.fill(row: 0, style: Style(foreground: .white, background: .blue))
        frame.write(" Shelf — Library", row: 0, column: 0, style: Style(foreground: .white, background: .blue, bold: true))
        for row in 1..<(size.rows - 1) {
            let style = row == selected ? Style(background: .cyan) : .plain
            if row == selected { frame.fill(row: row, style: style) }
            let end = frame.write(" b-\(1_000 + row)  The Book of Row \(row), by 作者 \(row)", row: row, column: 0, style: style)
            frame.write(row % 3 == 0 ? "finished" : "reading", row: row, column: max(end + 2, size.columns - 10), style: .dim)
        }
        frame.write(" 42 books · synced 2 min ago", row: size.rows - 1, column: 0, style: .reversed)
        return frame
    }

    static func bytes(_ previous: Frame?, _ next: Frame, _ mode: ColorMode) -> Int {
        FrameDiff.output(from: previous, to: next, colorMode: mode).count
    }

    @Test func bytesPerChange() {
        for size in [TerminalSize(rows: 24, columns: 80), TerminalSize(rows: 40, columns: 120)] {
            for mode in [ColorMode.color, .monochrome] {
                let screen = Self.screen(size)
                var oneCell = screen
                oneCell.write("X", row: size.rows / 2, column: size.columns / 2)
                let moved = Self.screen(size, selected: 4)
                let full = Self.bytes(nil, screen, mode)
                let single = Self.bytes(screen, oneCell, mode)
                let selection = Self.bytes(screen, moved, mode)
                print("terminal cost \(size) \(mode): full redraw \(full) B, one cell \(single) B, selection moved one row \(selection) B")
                #expect(single <= 12)
                #expect(selection < full / 4)
                #expect(full < size.rows * size.columns * 2)
            }
        }
    }
}
