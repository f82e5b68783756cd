// MARK: - AccountName

/// The name of a local account, which names its database file.
///
/// Because it becomes a file name, only a safe alphabet is accepted: ASCII letters,
/// digits, `.`, `_`, `-`, `@` and `+`, 1...128 characters, not starting with `.` (no
/// hidden files, no `.` or `..`). A `/`, a NUL or any other character is refused,
/// not replaced, so two different names can never map to the same file.
public struct AccountName: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// - Throws: `StorageError.invalidAccountName` saying which rule the name breaks.
    public init(_ raw: String) throws(StorageError) {
        guard !raw.isEmpty else { throw .invalidAccountName(raw, reason: "it is empty") }
        guard raw.utf8.count <= 128 else {
            throw .invalidAccountName(raw, reason: "it is longer than 128 characters")
        }
        guard raw.utf8.first != UInt8(ascii: ".") else {
            throw .invalidAccountName(raw, reason: "it must not start with '.'")
        }
        guard raw.utf8.allSatisfy(Self.isAllowed) else {
            throw .invalidAccountName(raw, reason: "use letters, digits, '.', '_', '-', '@' and '+'")
        }
        rawValue = raw
    }

    public var description: String { rawValue }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "@"), UInt8(ascii: "+"):
            return true
        default:
            return false
        }
    }
}
