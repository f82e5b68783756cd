import Foundation

// MARK: - JSONScanError

/// Malformed JSON, with the byte offset where reading stopped.
public struct JSONScanError: Error, Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "\(message) at byte \(offset)" }
}

// MARK: - JSONByteScanner

/// Walks JSON bytes, validating them fully, without building values: the sync path's
/// way to read a 10,000-record page at memory speed (see ARCHITECTURE.md, code map,
/// "Modules/Records").
///
/// It checks the whole grammar — string escapes including `\uXXXX` surrogate pairs,
/// UTF-8, numbers, literals, nesting — so bytes it accepts are bytes `JSONDecoder`
/// accepts too. Callers pull out only what they need (`id`, `last_modified`, the span of
/// a record) and skip the rest.
///
/// It reads memory it does not own: use it only inside `withUnsafeBytes` of the data.
public struct JSONByteScanner {
    /// Deeper nesting than this is refused rather than risking the stack on hostile input.
    public static let maximumDepth = 512

    public let base: UnsafePointer<UInt8>
    public let end: Int
    public private(set) var offset: Int = 0
    private var depth = 0

    public init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.end = count
    }

    /// Runs `body` with a scanner over `data`'s bytes; empty data gives an error at offset 0.
    public static func withScanner<R>(
        over data: some ContiguousBytes, _ body: (inout JSONByteScanner) throws(JSONScanError) -> R
    ) throws(JSONScanError) -> R {
        let result: Result<R, JSONScanError> = data.withUnsafeBytes { raw in
            guard let start = raw.baseAddress, raw.count > 0 else {
                return .failure(JSONScanError(offset: 0, message: "the body is empty"))
            }
            var scanner = JSONByteScanner(base: start.assumingMemoryBound(to: UInt8.self), count: raw.count)
            return Result { () throws(JSONScanError) in try body(&scanner) }
        }
        return try result.get()
    }

    // MARK: Bytes

    public static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    public var isAtEnd: Bool { offset >= end }

    public var peek: UInt8? { offset < end ? base[offset] : nil }

    public mutating func skipWhitespace() {
        while offset < end, Self.isWhitespace(base[offset]) { offset += 1 }
    }

    public func fail(_ message: String, at position: Int? = nil) -> JSONScanError {
        JSONScanError(offset: min(position ?? offset, end), message: message)
    }

    /// After the top-level value: only whitespace may follow.
    public mutating func expectEnd() throws(JSONScanError) {
        skipWhitespace()
        guard isAtEnd else { throw fail("unexpected bytes after the JSON value") }
    }

    // MARK: Containers

    /// Walks an object's members. `body` gets each key and must consume its value
    /// (read it or `skipValue()`); the scanner then checks the `,` / `}` that follows.
    ///
    /// A name given twice in one object is refused (`MemberNames`): readers disagree on
    /// which of the two counts (`JSONDecoder` keeps the first, a dictionary the last), so
    /// a record whose `id` is written twice could be checked under one and stored under
    /// the other.
    public mutating func forEachMember(
        _ body: (StringToken, inout JSONByteScanner) throws(JSONScanError) -> Void
    ) throws(JSONScanError) {
        skipWhitespace()
        guard peek == UInt8(ascii: "{") else { throw fail(peek == nil ? "unexpected end of input, expected an object" : "expected an object") }
        try enter()
        offset += 1
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return
        }
        var names = MemberNames()
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else {
                throw fail(peek == nil ? "unexpected end of input inside an object" : "expected a member name in quotes")
            }
            let keyStart = offset
            let key = try scanString()
            guard names.insert(key, in: self) else {
                throw fail("the member \"\(decode(key))\" is given twice", at: keyStart)
            }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw fail(peek == nil ? "unexpected end of input inside an object" : "expected ':' after a member name") }
            offset += 1
            skipWhitespace()
            try body(key, &self)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"): offset += 1; depth -= 1; return
            case nil: throw fail("unexpected end of input inside an object")
            default: throw fail("expected ',' or '}' in an object")
            }
        }
    }

    /// Walks an array's elements. `body` must consume each element.
    public mutating func forEachElement(_ body: (inout JSONByteScanner) throws(JSONScanError) -> Void) throws(JSONScanError) {
        skipWhitespace()
        guard peek == UInt8(ascii: "[") else { throw fail(peek == nil ? "unexpected end of input, expected an array" : "expected an array") }
        try enter()
        offset += 1
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            try body(&self)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"): offset += 1; depth -= 1; return
            case nil: throw fail("unexpected end of input inside an array")
            default: throw fail("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func enter() throws(JSONScanError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth) levels") }
    }

    // MARK: Values

    /// Validates and steps over one value of any kind.
    /// - Returns: the value's byte range.
    @discardableResult
    public mutating func skipValue() throws(JSONScanError) -> Range<Int> {
        skipWhitespace()
        let start = offset
        guard let byte = peek else { throw fail("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "\""):
            _ = try scanString()
        case UInt8(ascii: "{"):
            try forEachMember { _, scanner throws(JSONScanError) in try scanner.skipValue() }
        case UInt8(ascii: "["):
            try forEachElement { scanner throws(JSONScanError) in try scanner.skipValue() }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try scanNumber()
        case UInt8(ascii: "t"):
            try scanLiteral("true")
        case UInt8(ascii: "f"):
            try scanLiteral("false")
        case UInt8(ascii: "n"):
            try scanLiteral("null")
        default:
            throw fail("unexpected character '\(Self.printable(byte))', expected a value")
        }
        return start..<offset
    }

    /// Reads `true` or `false`.
    public mutating func readBool(_ what: @autoclosure () -> String) throws(JSONScanError) -> Bool {
        skipWhitespace()
        switch peek {
        case UInt8(ascii: "t"): try scanLiteral("true"); return true
        case UInt8(ascii: "f"): try scanLiteral("false"); return false
        default: throw fail("\(what()) must be true or false")
        }
    }

    /// Reads a number that must be an integer that fits in `Int` (`1796039015138`, not `1.5e3`).
    public mutating func readInteger(_ what: @autoclosure () -> String) throws(JSONScanError) -> Int {
        skipWhitespace()
        let start = offset
        guard let byte = peek, byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
            throw fail("\(what()) must be an integer")
        }
        let isInteger = try scanNumber()
        guard isInteger else { throw fail("\(what()) must be an integer", at: start) }
        var index = start
        let negative = base[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value = 0
        while index < offset {
            let digit = Int(base[index] &- UInt8(ascii: "0"))
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { throw fail("\(what()) is out of range", at: start) }
            value = sum
            index += 1
        }
        return value
    }

    /// Reads a string value and decodes its escapes.
    public mutating func readString(_ what: @autoclosure () -> String) throws(JSONScanError) -> String {
        skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { throw fail("\(what()) must be a string") }
        return decode(try scanString())
    }

    mutating func scanLiteral(_ literal: StaticString) throws(JSONScanError) {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        guard offset + count <= end else { throw fail("unexpected end of input in '\(literal)'") }
        for index in 0..<count where base[offset + index] != start[index] {
            throw fail("invalid literal, expected '\(literal)'")
        }
        offset += count
    }

    /// Steps over a number, checking JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    /// - Returns: whether it is an integer (no fraction, no exponent).
    mutating func scanNumber() throws(JSONScanError) -> Bool {
        let start = offset
        var index = offset
        if index < end, base[index] == UInt8(ascii: "-") { index += 1 }
        guard index < end, Self.isDigit(base[index]) else { throw fail("invalid number", at: start) }
        if base[index] == UInt8(ascii: "0") {
            index += 1
            if index < end, Self.isDigit(base[index]) { throw fail("invalid number: leading zero", at: start) }
        } else {
            while index < end, Self.isDigit(base[index]) { index += 1 }
        }
        var isInteger = true
        if index < end, base[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < end, Self.isDigit(base[index]) else { throw fail("invalid number: no digit after '.'", at: start) }
            while index < end, Self.isDigit(base[index]) { index += 1 }
        }
        if index < end, base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < end, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") { index += 1 }
            guard index < end, Self.isDigit(base[index]) else { throw fail("invalid number: no digit in the exponent", at: start) }
            while index < end, Self.isDigit(base[index]) { index += 1 }
        }
        offset = index
        return isInteger
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    // MARK: Strings

    /// A string's bytes between its quotes, still escaped.
    public struct StringToken {
        public var start: Int
        public var end: Int
        public var hasEscapes: Bool
    }

    /// Steps over a string (the scanner is on its opening quote), validating escapes,
    /// surrogate pairs, control characters and UTF-8.
    public mutating func scanString() throws(JSONScanError) -> StringToken {
        let start = offset + 1
        var index = start
        var hasEscapes = false
        while index < end {
            // NB: eight plain bytes at a time (no quote, backslash, control byte or byte
            // above 0x7F among them): the long strings of a page — a sealed record's base64
            // ciphertext, a description — are stepped over a word at a time.
            if index + 8 <= end, !Self.needsALook(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                offset = index + 1
                return StringToken(start: start, end: index, hasEscapes: hasEscapes)
            } else if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                index = try stepOverEscape(at: index)
            } else if byte < 0x20 {
                throw fail("unescaped control character in a string", at: index)
            } else if byte >= 0x80 {
                index = try stepOverUTF8(at: index)
            } else {
                index += 1
            }
        }
        throw fail("unterminated string", at: start - 1)
    }

    /// Whether any of eight bytes is a quote, a backslash, below 0x20 or above 0x7F (a
    /// word with none of them is plain string content). It may say yes for a word without
    /// one (a borrow between bytes), never no for a word with one.
    @inline(__always)
    static func needsALook(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- 0x20 &* ones) & ~word
        let quote = word ^ (0x22 &* ones)
        let backslash = word ^ (0x5C &* ones)
        let quotes = (quote &- ones) & ~quote
        let backslashes = (backslash &- ones) & ~backslash
        return (word | control | quotes | backslashes) & highs != 0
    }

    /// - Returns: the index after the escape that starts at `index` (a backslash).
    private func stepOverEscape(at index: Int) throws(JSONScanError) -> Int {
        guard index + 1 < end else { throw fail("unterminated string", at: index) }
        switch base[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return index + 2
        case UInt8(ascii: "u"):
            let unit = try hexUnit(at: index + 2)
            switch unit {
            case 0xD800...0xDBFF:
                guard index + 7 < end, base[index + 6] == UInt8(ascii: "\\"), base[index + 7] == UInt8(ascii: "u") else {
                    throw fail("unpaired surrogate \\u\(String(unit, radix: 16, uppercase: true))", at: index)
                }
                let low = try hexUnit(at: index + 8)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw fail("unpaired surrogate \\u\(String(unit, radix: 16, uppercase: true))", at: index)
                }
                return index + 12
            case 0xDC00...0xDFFF:
                throw fail("unpaired surrogate \\u\(String(unit, radix: 16, uppercase: true))", at: index)
            default:
                return index + 6
            }
        default:
            throw fail("invalid escape '\\\(Self.printable(base[index + 1]))'", at: index)
        }
    }

    private func hexUnit(at index: Int) throws(JSONScanError) -> UInt16 {
        guard index + 4 <= end else { throw fail("unterminated \\u escape", at: index - 2) }
        var value: UInt16 = 0
        for position in index..<index + 4 {
            guard let nibble = Self.hexValue(base[position]) else {
                throw fail("invalid \\u escape: expected four hex digits", at: index - 2)
            }
            value = value << 4 | UInt16(nibble)
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Validates one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates,
    /// nothing above U+10FFFF). - Returns: the index after it.
    private func stepOverUTF8(at index: Int) throws(JSONScanError) -> Int {
        let lead = base[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw fail("invalid UTF-8 byte 0x\(String(lead, radix: 16, uppercase: true))", at: index)
        }
        guard index + length <= end else { throw fail("truncated UTF-8 sequence", at: index) }
        guard secondRange.contains(base[index + 1]) else { throw fail("invalid UTF-8 sequence", at: index) }
        for position in index + 2 ..< index + length where base[position] & 0xC0 != 0x80 {
            throw fail("invalid UTF-8 sequence", at: index)
        }
        return index + length
    }

    /// The string a validated token stands for, escapes decoded.
    public func decode(_ token: StringToken) -> String {
        let raw = UnsafeBufferPointer(start: base + token.start, count: token.end - token.start)
        guard token.hasEscapes else { return String(decoding: raw, as: UTF8.self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var index = token.start
        while index < token.end {
            let byte = base[index]
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                index += 1
                continue
            }
            let escaped = base[index + 1]
            switch escaped {
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                // NB: `scanString` validated every \u escape and paired every surrogate,
                // so these reads stay inside the token and the scalar is valid.
                let unit = UInt32(hexUnitUnchecked(at: index + 2))
                var scalar = unit
                if (0xD800...0xDBFF).contains(unit) {
                    let low = UInt32(hexUnitUnchecked(at: index + 8))
                    scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                Self.appendUTF8(scalar, to: &bytes)
                index += 6
                continue
            default: bytes.append(escaped)  // " \ /
            }
            index += 2
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends a scalar value (never a surrogate, at most U+10FFFF) as UTF-8.
    private static func appendUTF8(_ scalar: UInt32, to bytes: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            bytes.append(UInt8(scalar))
        case 0x80..<0x800:
            bytes.append(UInt8(0xC0 | scalar >> 6))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            bytes.append(UInt8(0xE0 | scalar >> 12))
            bytes.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        default:
            bytes.append(UInt8(0xF0 | scalar >> 18))
            bytes.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            bytes.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            bytes.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    private func hexUnitUnchecked(at index: Int) -> UInt16 {
        var value: UInt16 = 0
        for position in index..<index + 4 {
            value = value << 4 | UInt16(Self.hexValue(base[position]) ?? 0)
        }
        return value
    }

    /// Whether a member name is exactly `name`, escaped or not (`"\u0069d"` is `"id"`).
    public func key(_ token: StringToken, is name: StaticString) -> Bool {
        if token.hasEscapes { return decode(token) == name.description }
        let count = name.utf8CodeUnitCount
        guard token.end - token.start == count else { return false }
        let expected = name.utf8Start
        for index in 0..<count where base[token.start + index] != expected[index] { return false }
        return true
    }

    public static func printable(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true)
    }
}
