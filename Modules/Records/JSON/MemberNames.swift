import Foundation

// MARK: - MemberNames

/// The member names of one JSON object read so far, to refuse a name given twice
/// (`JSONByteScanner.forEachMember`).
///
/// Names are compared as the strings they stand for, so `"id"` and `"\u0069d"` are the
/// same name. A record has a handful of members, so each new name is compared with the
/// earlier ones in turn — names of different lengths without escapes differ at the first
/// look — and only an object of many members switches to a hashed set of decoded names.
struct MemberNames {
    /// The earlier names of the object, as tokens of the scanner's bytes.
    private var tokens: [JSONByteScanner.StringToken] = []
    /// Every name decoded, once the object has more than `linearLimit` members.
    private var decoded: Set<String> = []
    private var hashed = false

    /// Past this many members, names are hashed instead of compared in turn.
    private static let linearLimit = 24

    /// Adds `token`; false when the object already has a member of that name.
    mutating func insert(_ token: JSONByteScanner.StringToken, in scanner: JSONByteScanner) -> Bool {
        if hashed { return decoded.insert(scanner.decode(token)).inserted }
        for earlier in tokens where Self.same(earlier, token, in: scanner) { return false }
        guard tokens.count < Self.linearLimit else {
            decoded = Set(tokens.map(scanner.decode))
            decoded.insert(scanner.decode(token))
            hashed = true
            tokens = []
            return true
        }
        if tokens.isEmpty { tokens.reserveCapacity(12) }
        tokens.append(token)
        return true
    }

    /// Whether two tokens stand for the same string.
    private static func same(_ left: JSONByteScanner.StringToken, _ right: JSONByteScanner.StringToken, in scanner: JSONByteScanner) -> Bool {
        if left.hasEscapes || right.hasEscapes { return scanner.decode(left) == scanner.decode(right) }
        let count = left.end - left.start
        guard right.end - right.start == count else { return false }
        return memcmp(scanner.base + left.start, scanner.base + right.start, count) == 0
    }
}
