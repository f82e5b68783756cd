// MARK: - Base64

/// Standard base64 (RFC 4648, with padding), decoded straight from the bytes the page
/// scanner found: an envelope's nonce and ciphertext are read without a `Data` or `String`
/// in between, which on a first pull of a sealed library is most of what opening costs
/// beyond the cipher. Strict: a length that is not a multiple of four, a character outside
/// the alphabet, padding anywhere but at the end, or bits left over in the last character
/// are refused, so one ciphertext has one text.
enum Base64 {
    private static let invalid: UInt8 = 0xFF

    /// The value of each byte as a base64 digit, `invalid` for the rest.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// The length `text` decodes to; nil when its length is not a multiple of four.
    static func decodedLength(of text: UnsafeRawBufferPointer) -> Int? {
        let count = text.count
        guard count % 4 == 0 else { return nil }
        guard count > 0 else { return 0 }
        let padding = (text[count - 1] == UInt8(ascii: "=") ? 1 : 0) + (text[count - 2] == UInt8(ascii: "=") ? 1 : 0)
        return count / 4 * 3 - padding
    }

    /// The bytes `text` stands for; nil when it is not canonical base64 or decodes to more
    /// than `maximum` bytes (checked before any work).
    static func decode(_ text: UnsafeRawBufferPointer, maximum: Int) -> [UInt8]? {
        guard let length = decodedLength(of: text), length <= maximum else { return nil }
        var output = [UInt8](repeating: 0, count: length)
        let written = output.withUnsafeMutableBytes { decode(text, into: $0) }
        return written == length ? output : nil
    }

    /// Decodes `text` into the front of `output` (at least `decodedLength(of:)` bytes), so
    /// a page's envelopes are decoded into one buffer kept from record to record.
    /// - Returns: the number of bytes written; nil when `text` is not canonical base64 or
    ///   `output` is too short.
    static func decode(_ text: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
        guard let length = decodedLength(of: text), output.count >= length else { return nil }
        guard !text.isEmpty else { return 0 }
        let count = text.count
        let padding = count / 4 * 3 - length
        guard let input = text.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        return values.withUnsafeBufferPointer { table -> Int? in
            // NB: a valid digit is below 64; `invalid` (and nothing valid) has the top bits
            // set. The digits of the whole groups are OR-ed together and checked once at
            // the end, not group by group: the output is thrown away when any is invalid.
            var seen: UInt8 = 0
            var index = 0
            var written = 0
            let whole = count - 4
            while index < whole {
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                let c = table[Int(input[index + 2])], d = table[Int(input[index + 3])]
                seen |= a | b | c | d
                let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                out[written] = UInt8(truncatingIfNeeded: group >> 16)
                out[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                out[written + 2] = UInt8(truncatingIfNeeded: group)
                written += 3
                index += 4
            }
            let a = table[Int(input[index])], b = table[Int(input[index + 1])]
            let c = padding == 2 ? 0 : table[Int(input[index + 2])]
            let d = padding >= 1 ? 0 : table[Int(input[index + 3])]
            seen |= a | b | c | d
            guard seen & 0xC0 == 0 else { return nil }
            let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            // NB: canonical only: the bits a padded group leaves over must be zero.
            if padding == 2, group & 0xFFFF != 0 { return nil }
            if padding == 1, group & 0xFF != 0 { return nil }
            out[written] = UInt8(truncatingIfNeeded: group >> 16)
            if padding < 2 { out[written + 1] = UInt8(truncatingIfNeeded: group >> 8) }
            if padding < 1 { out[written + 2] = UInt8(truncatingIfNeeded: group) }
            return length
        }
    }
}
