// MARK: - TerminalSize

/// Rows and columns of a terminal or a frame, each held to `0...maximum` so a size from
/// `TIOCGWINSZ` (up to 65,535 each way) can never make a frame of billions of cells.
public struct TerminalSize: Hashable, Sendable, CustomStringConvertible {
    public static let maximum = 1_000

    public let rows: Int
    public let columns: Int

    public init(rows: Int, columns: Int) {
        self.rows = min(max(0, rows), Self.maximum)
        self.columns = min(max(0, columns), Self.maximum)
    }

    public var description: String { "\(columns)×\(rows)" }
}
