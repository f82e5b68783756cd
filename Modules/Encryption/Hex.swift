// MARK: - Hex

/// Lowercase hexadecimal, for key ids and keyed record ids: only digits and `a`–`f`, which
/// every Kinto id and every terminal accepts as they are.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func string(_ bytes: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The value of one lowercase hex digit, nil for any other byte.
    static func digitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
