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

    /// The bytes `text` stands for; nil when it is not canonical base64 or decodes to more
    /// than `maximum` bytes (checked before any work).
    static func decode(_ text: UnsafeRawBufferPointer, maximum: Int) -> [UInt8]? {
        let count = text.count
        guard count % 4 == 0 else { return nil }
        guard count > 0 else { return [] }
        let padding = (text[count - 1] == UInt8(ascii: "=") ? 1 : 0) + (text[count - 2] == UInt8(ascii: "=") ? 1 : 0)
        let length = count / 4 * 3 - padding
        guard length <= maximum else { return nil }
        var output = [UInt8](repeating: 0, count: length)
        let ok = values.withUnsafeBufferPointer { table in
            output.withUnsafeMutableBufferPointer { out in
                var written = 0
                var index = 0
                while index < count {
                    let last = index + 4 == count
                    let a = table[Int(text[index])], b = table[Int(text[index + 1])]
                    let c = last && padding == 2 ? 0 : table[Int(text[index + 2])]
                    let d = last && padding >= 1 ? 0 : table[Int(text[index + 3])]
                    guard a | b | c | d != invalid, a < 64, b < 64, c < 64, d < 64 else { return false }
                    let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[written] = UInt8(group >> 16)
                    if written + 1 < length { out[written + 1] = UInt8(group >> 8 & 0xFF) }
                    if written + 2 < length { out[written + 2] = UInt8(group & 0xFF) }
                    if last {
                        // NB: canonical only: the bits a padded group leaves over must be zero.
                        if padding == 2, group & 0xFFFF != 0 { return false }
                        if padding == 1, group & 0xFF != 0 { return false }
                    }
                    written += 3
                    index += 4
                }
                return true
            }
        }
        return ok ? output : nil
    }
}
