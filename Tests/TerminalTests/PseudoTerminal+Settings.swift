import Terminal
import TestSupport

// MARK: - The slave's settings

extension PseudoTerminal {
    /// The slave's termios as bytes, to compare settings exactly.
    func settings() throws -> [UInt8] {
        var settings = try RawMode.settings(of: slave)
        return withUnsafeBytes(of: &settings) { Array($0) }
    }
}
