// MARK: - AssociatedData

/// The authenticated data of a seal: what the ciphertext is bound to without carrying it.
///
/// Each part is written with its length first (4 bytes, big-endian), so no two lists of
/// parts give the same bytes: `("ab", "c")` and `("a", "bc")` differ, whatever the parts
/// hold.
enum AssociatedData {
    static func of(_ parts: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts { append(part, to: &bytes) }
        return bytes
    }

    /// Appends one part, its length first.
    static func append(_ part: String, to bytes: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: part.utf8.count)
        // NB: truncation cannot happen: every part is a name, an id or a number.
        bytes.append(UInt8(length >> 24))
        bytes.append(UInt8(length >> 16 & 0xff))
        bytes.append(UInt8(length >> 8 & 0xff))
        bytes.append(UInt8(length & 0xff))
        bytes.append(contentsOf: part.utf8)
    }

    /// Appends a number as the part its decimal text is (`append(String(value), to:)`),
    /// without making the text: a page's records each carry their sequence number.
    static func append(decimal value: Int64, to bytes: inout [UInt8]) {
        let length = DecimalText.length(value)
        let count = UInt32(length)
        bytes.append(UInt8(count >> 24))
        bytes.append(UInt8(count >> 16 & 0xff))
        bytes.append(UInt8(count >> 8 & 0xff))
        bytes.append(UInt8(count & 0xff))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: length))
        bytes.withUnsafeMutableBufferPointer { buffer in
            // NB: never nil: the buffer holds at least the length prefix just appended.
            guard let base = buffer.baseAddress else { return }
            _ = DecimalText.write(value, at: base + start)
        }
    }
}
