// MARK: - Record identifiers

/// The shape of a record id that both Shelf and a Kinto server accept:
/// 1...64 characters of ASCII letters, digits, `-` and `_`.
///
/// Kinto's own rule is the same character class; checking it here turns a bad id
/// typed on the command line into a clear error before it reaches a URL.
public enum RecordID {
    public static func validate(_ raw: String) throws(DomainError) -> String {
        guard (1...64).contains(raw.utf8.count), allAllowed(raw) else { throw .invalidIdentifier(raw) }
        return raw
    }

    /// Whether every byte of `raw` is allowed. NB: over the contiguous UTF-8 when the
    /// string has it (every id read from a page does): a first sync checks 100,000 ids,
    /// and stepping through `utf8` cost four times as much.
    private static func allAllowed(_ raw: String) -> Bool {
        if let allowed = raw.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(isAllowed) }) { return allowed }
        return raw.utf8.allSatisfy(isAllowed)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
