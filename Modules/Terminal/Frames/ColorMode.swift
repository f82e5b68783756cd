// MARK: - ColorMode

/// Whether a frame reaches the terminal in colour, decided once per session by the same
/// rule as the CLI's output (`OutputPolicy.colors`: `--color`, `TERM=dumb`, `NO_COLOR`).
///
/// Monochrome keeps a layout readable with bold, underline and reverse only: a coloured
/// background (a selected row, a status bar) becomes reverse video, a coloured foreground
/// (a warning, a highlight) becomes bold, and dim is dropped, since some terminals draw
/// dim as a colour.
public enum ColorMode: Hashable, Sendable {
    case color
    case monochrome

    /// - Parameters:
    ///   - choice: `--color auto|always|never`.
    ///   - policy: the facts about the output stream (a terminal or not, the environment).
    public init(_ choice: ColorChoice, policy: OutputPolicy) {
        self = policy.colors(choice) ? .color : .monochrome
    }

    /// `style` as this mode draws it.
    public func rendered(_ style: Style) -> Style {
        guard self == .monochrome else { return style }
        return Style(
            bold: style.isBold || style.foreground != nil,
            underlined: style.isUnderlined,
            reversed: style.isReversed || style.background != nil)
    }
}
