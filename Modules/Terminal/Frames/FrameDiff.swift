// MARK: - FrameDiff

/// The bytes that turn the screen from one frame into the next: cursor moves and the
/// changed runs of cells only, with an SGR sequence only where the style changes.
///
/// A full redraw — no previous frame, a different size, or a screen that may have been
/// drawn over (after SIGCONT) — clears the screen and then writes the frame as a change
/// from a blank one, so blank cells cost nothing either way.
public enum FrameDiff {
    /// Unchanged cells shorter than this between two changed runs are written again
    /// rather than skipped over: a cursor move costs about as many bytes.
    static let gapWorthSkipping = 4

    /// The output that shows `next` on a screen that shows `previous` (nil: unknown).
    public static func output(from previous: Frame?, to next: Frame, colorMode: ColorMode) -> [UInt8] {
        var writer = Output(columns: next.columns, colorMode: colorMode)
        let base: Frame
        if let previous, previous.size == next.size {
            base = previous
        } else {
            writer.append(ControlSequence.resetStyle + ControlSequence.home + ControlSequence.clearScreen)
            writer.cursor = (0, 0)
            base = Frame(size: next.size)
        }
        for row in 0..<next.rows {
            for run in changedRuns(row: row, from: base, to: next) {
                writer.move(row: row, column: run.lowerBound)
                for column in run { writer.put(next[row, column]) }
            }
        }
        writer.finish()
        return writer.bytes
    }

    /// The ranges of columns of `row` to write: changed cells, joined across short gaps,
    /// widened so that a run never starts on the second half of a wide character.
    static func changedRuns(row: Int, from base: Frame, to next: Frame) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start: Int?
        var lastChanged = 0
        for column in 0..<next.columns where base[row, column] != next[row, column] {
            if let open = start, column - lastChanged > gapWorthSkipping {
                runs.append(open..<end(after: lastChanged, row: row, in: next))
                start = nil
            }
            if start == nil {
                start = next[row, column].isContinuation && column > 0 ? column - 1 : column
            }
            lastChanged = column
        }
        if let open = start { runs.append(open..<end(after: lastChanged, row: row, in: next)) }
        return runs
    }

    /// Where a run whose last changed cell is `column` ends: after a wide character's
    /// second half when the cell is its first half.
    private static func end(after column: Int, row: Int, in frame: Frame) -> Int {
        min(frame[row, column].width == 2 ? column + 2 : column + 1, frame.columns)
    }

    // MARK: Output

    /// The bytes being written, with where the cursor is and which style is on.
    struct Output {
        let columns: Int
        let colorMode: ColorMode
        var bytes: [UInt8] = []
        /// Nil when unknown: at the start, and after the last column was written (the
        /// terminal may be waiting to wrap).
        var cursor: (row: Int, column: Int)?
        /// Plain at the start: every output ends in the plain style (`finish()`), and a full
        /// redraw begins by resetting it.
        var style: Style = .plain

        init(columns: Int, colorMode: ColorMode) {
            self.columns = columns
            self.colorMode = colorMode
        }

        mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

        mutating func move(row: Int, column: Int) {
            if let cursor, cursor.row == row {
                if cursor.column == column { return }
                if cursor.column < column {
                    append(ControlSequence.forward(column - cursor.column))
                    self.cursor = (row, column)
                    return
                }
            }
            append(ControlSequence.moveTo(row: row, column: column))
            cursor = (row, column)
        }

        mutating func put(_ cell: Cell) {
            guard !cell.isContinuation, let at = cursor else { return }
            let drawn = colorMode.rendered(cell.style)
            if drawn != style {
                append(ControlSequence.select(drawn))
                style = drawn
            }
            append(cell.text)
            let column = at.column + cell.width
            cursor = column >= columns ? nil : (at.row, column)
        }

        /// Leaves the terminal in the plain style, so the next output (or the shell, after
        /// a restore) starts from a known state.
        mutating func finish() {
            if style != .plain { append(ControlSequence.resetStyle) }
        }
    }
}
