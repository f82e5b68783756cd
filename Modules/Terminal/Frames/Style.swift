// MARK: - Style

/// How a cell is drawn: a few attributes and the eight ANSI colours, the set every
/// terminal Shelf runs in shows. `ColorMode` decides what reaches the terminal.
public struct Style: Hashable, Sendable {
    /// Nil: the terminal's own colour.
    public var foreground: Color?
    public var background: Color?
    public var isBold: Bool
    public var isDim: Bool
    public var isUnderlined: Bool
    public var isReversed: Bool

    public init(
        foreground: Color? = nil, background: Color? = nil,
        bold: Bool = false, dim: Bool = false, underlined: Bool = false, reversed: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.isBold = bold
        self.isDim = dim
        self.isUnderlined = underlined
        self.isReversed = reversed
    }

    public static let plain = Style()
    public static let bold = Style(bold: true)
    public static let dim = Style(dim: true)
    public static let underlined = Style(underlined: true)
    public static let reversed = Style(reversed: true)
}

// MARK: - Color

/// The eight ANSI colours (SGR 30–37 and 40–47).
public enum Color: UInt8, CaseIterable, Hashable, Sendable {
    case black, red, green, yellow, blue, magenta, cyan, white
}
