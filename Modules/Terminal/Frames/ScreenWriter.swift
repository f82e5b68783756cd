// MARK: - ScreenWriter

/// The frame the screen shows, and the output that moves it to the next one
/// (`FrameDiff`). A value with no I/O: the session writes the bytes.
public struct ScreenWriter: Sendable {
    public let colorMode: ColorMode
    /// The last frame written; nil before the first one and after `invalidate()`.
    public private(set) var shown: Frame?
    /// Whether the next output must be a full redraw even when the size is the same.
    private var mustRedraw = true

    public init(colorMode: ColorMode) {
        self.colorMode = colorMode
    }

    /// The bytes that show `frame`; remembers it as shown.
    public mutating func output(for frame: Frame) -> [UInt8] {
        let bytes = FrameDiff.output(from: mustRedraw ? nil : shown, to: frame, colorMode: colorMode)
        shown = frame
        mustRedraw = false
        return bytes
    }

    /// The screen can no longer be trusted to show `shown` (after a stop, a resize or a
    /// return to the alternate screen): the next output redraws everything.
    public mutating func invalidate() {
        mustRedraw = true
    }

    /// The whole of the last frame again, for a screen that was drawn over; empty before
    /// the first frame.
    public mutating func redrawShown() -> [UInt8] {
        guard let shown else { return [] }
        invalidate()
        return output(for: shown)
    }
}
