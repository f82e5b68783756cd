// MARK: - DecimalText

/// A number's decimal text written straight into bytes, without a `String`: an opened
/// record's spliced stamps and the sequence number bound into its authenticated data are
/// written for every record of a page.
enum DecimalText {
    /// How many bytes `value` is written in, its sign included.
    static func length(_ value: Int64) -> Int {
        var length = value < 0 ? 2 : 1
        var remaining = value.magnitude / 10
        while remaining > 0 {
            length += 1
            remaining /= 10
        }
        return length
    }

    /// Writes `value` at `cursor` (`length(value)` bytes), sign first; the cursor after it.
    static func write(_ value: Int64, at cursor: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var cursor = cursor
        if value < 0 {
            cursor.pointee = UInt8(ascii: "-")
            cursor += 1
        }
        var remaining = value.magnitude
        let digits = length(value) - (value < 0 ? 1 : 0)
        var index = digits - 1
        while index >= 0 {
            cursor[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
            index -= 1
        }
        return cursor + digits
    }
}
