import Foundation

// MARK: - WireFields

/// The top-level scalar fields of one record's JSON, read without decoding the whole
/// record into a model.
///
/// The store keeps each record's raw bytes exactly as the server sent them and needs
/// only a few fields from them (`id`, `last_modified`, `deleted`, `title`, …) to
/// maintain its sort and search columns. Foundation's decoders cost far more than that
/// on Linux, so this reads the object once, keeps strings, booleans, numbers and nulls
/// of the top level, and skips nested arrays and objects. Full validation is SQLite's
/// job: the `records.json` column has a `json_valid` check.
public struct WireFields: Sendable {
    public enum Value: Hashable, Sendable {
        case string(String)
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        case null
        /// An array or object; its contents are not read.
        case nested
    }

    /// In the object's order; a repeated name keeps its last value, as a dictionary would.
    ///
    /// NB: an array, not a dictionary: a record has a handful of fields, and hashing
    /// every name of every pulled record cost more than the linear look-ups.
    public private(set) var members: [(name: String, value: Value)] = []

    public subscript(key: String) -> Value? {
        members.first { $0.name == key }?.value
    }

    public func string(_ key: String) -> String? {
        if case .string(let text) = self[key] { return text }
        return nil
    }

    public func bool(_ key: String) -> Bool? {
        if case .bool(let flag) = self[key] { return flag }
        return nil
    }

    public func integer(_ key: String) -> Int64? {
        switch self[key] {
        case .integer(let number): return number
        case .real(let number): return Int64(exactly: number)
        default: return nil
        }
    }

    fileprivate mutating func set(_ name: String, _ value: Value) {
        if let index = members.firstIndex(where: { $0.name == name }) {
            members[index].value = value
        } else {
            members.append((name, value))
        }
    }

    /// A member name to keep, as bytes to compare with and as the text to store.
    public struct Name: Sendable {
        let bytes: StaticString
        let text: String

        public init(_ bytes: StaticString) {
            self.bytes = bytes
            self.text = bytes.description
        }
    }

    /// Why bytes could not be read as a JSON object; `offset` is a byte position.
    public struct SyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
        let reason: String
        let offset: Int
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// Reads the top-level fields of a JSON object.
    /// - Parameter names: keep only these members (the rest are checked and skipped
    ///   without decoding them); nil keeps every member.
    /// - Throws: `SyntaxError` when the bytes are not a JSON object.
    public static func parse(_ data: Data, keeping names: [Name]? = nil) throws(SyntaxError) -> WireFields {
        let result: Result<WireFields, SyntaxError> = data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self), keeping: names)
            do throws(SyntaxError) {
                return .success(try scanner.readObject())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

// MARK: - Scanner

extension WireFields {
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        let keeping: [Name]?
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>, keeping: [Name]?) {
            self.bytes = bytes
            self.keeping = keeping
        }

        mutating func readObject() throws(SyntaxError) -> WireFields {
            var fields = WireFields()
            if let keeping { fields.members.reserveCapacity(keeping.count) }
            skipWhitespace()
            try expect(UInt8(ascii: "{"), "expected a JSON object")
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                index += 1
            } else {
                while true {
                    skipWhitespace()
                    guard peek() == UInt8(ascii: "\"") else { throw fail("expected a field name") }
                    let key = try readName()
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"), "expected ':' after a field name")
                    skipWhitespace()
                    if let key {
                        fields.set(key, try readValue())
                    } else {
                        try skipValue()
                    }
                    skipWhitespace()
                    if peek() == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "}"), "expected ',' or '}'")
                    break
                }
            }
            skipWhitespace()
            guard index == bytes.count else { throw fail("unexpected bytes after the object") }
            return fields
        }

        /// Reads a member name; nil when it is not one of the names being kept.
        private mutating func readName() throws(SyntaxError) -> String? {
            guard let keeping else { return try readString() }
            let start = index + 1
            try skipString()
            let end = index - 1
            let name = UnsafeBufferPointer(rebasing: bytes[start..<end])
            guard let base = name.baseAddress, !name.isEmpty else {
                return keeping.contains { $0.bytes.utf8CodeUnitCount == 0 } ? "" : nil
            }
            if !name.contains(UInt8(ascii: "\\")) {
                let wanted = keeping.first {
                    $0.bytes.utf8CodeUnitCount == name.count && memcmp($0.bytes.utf8Start, base, name.count) == 0
                }
                return wanted?.text
            }
            // An escaped name (`"\u0069d"` is `"id"`): decode it to compare.
            index = start - 1
            let decoded = try readString()
            return keeping.contains { $0.text == decoded } ? decoded : nil
        }

        // MARK: Values

        /// Steps over a value that is not kept, checking it as `readValue` would.
        private mutating func skipValue() throws(SyntaxError) {
            guard let byte = peek() else { throw fail("expected a value") }
            switch byte {
            case UInt8(ascii: "\""):
                try skipString()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try skipNumber()
            default:
                _ = try readValue()
            }
        }

        private mutating func readValue() throws(SyntaxError) -> Value {
            guard let byte = peek() else { throw fail("expected a value") }
            switch byte {
            case UInt8(ascii: "\""):
                return .string(try readString())
            case UInt8(ascii: "t"):
                try expectWord("true"); return .bool(true)
            case UInt8(ascii: "f"):
                try expectWord("false"); return .bool(false)
            case UInt8(ascii: "n"):
                try expectWord("null"); return .null
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                try skipNested(); return .nested
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return try readNumber()
            default:
                throw fail("unexpected character")
            }
        }

        private mutating func readNumber() throws(SyntaxError) -> Value {
            let start = index
            let isInteger = try skipNumber()
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if isInteger, let number = Int64(text) { return .integer(number) }
            guard let number = Double(text) else { throw fail("number out of range") }
            return .real(number)
        }

        /// Steps over a number. - Returns: whether it has neither fraction nor exponent.
        @discardableResult
        private mutating func skipNumber() throws(SyntaxError) -> Bool {
            var isInteger = true
            if peek() == UInt8(ascii: "-") { index += 1 }
            guard let first = peek(), isDigit(first) else { throw fail("expected a digit") }
            while let byte = peek(), isDigit(byte) { index += 1 }
            if peek() == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard let byte = peek(), isDigit(byte) else { throw fail("expected a digit after '.'") }
                while let byte = peek(), isDigit(byte) { index += 1 }
            }
            if let byte = peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
                guard let byte = peek(), isDigit(byte) else { throw fail("expected a digit in the exponent") }
                while let byte = peek(), isDigit(byte) { index += 1 }
            }
            return isInteger
        }

        /// Skips an array or object, honouring strings so brackets inside them don't count.
        private mutating func skipNested() throws(SyntaxError) {
            var depth = 0
            while let byte = peek() {
                switch byte {
                case UInt8(ascii: "\""):
                    _ = try readString()
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                default:
                    break
                }
                index += 1
                if depth == 0 { return }
            }
            throw fail("unterminated array or object")
        }

        // MARK: Strings

        /// Reads a string starting at its opening quote, decoding escapes (including
        /// `\uXXXX` surrogate pairs, which Kinto uses for every non-ASCII character).
        private mutating func readString() throws(SyntaxError) -> String {
            index += 1  // opening quote
            let start = index
            // Fast path: no escapes, the bytes are the string.
            while let byte = peek(), byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                guard byte >= 0x20 else { throw fail("control character in a string") }
                index += 1
            }
            guard let stop = peek() else { throw fail("unterminated string") }
            if stop == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            var utf8 = Array(bytes[start..<index])
            while true {
                guard let byte = peek() else { throw fail("unterminated string") }
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    try readEscape(into: &utf8, keep: true)
                case 0..<0x20:
                    throw fail("control character in a string")
                default:
                    utf8.append(byte)
                }
            }
        }

        /// Steps over a string starting at its opening quote, checking its escapes as
        /// `readString` does, without building it.
        private mutating func skipString() throws(SyntaxError) {
            index += 1  // opening quote
            while true {
                while let byte = peek(), byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                    guard byte >= 0x20 else { throw fail("control character in a string") }
                    index += 1
                }
                guard let stop = peek() else { throw fail("unterminated string") }
                index += 1
                if stop == UInt8(ascii: "\"") { return }
                var unused: [UInt8] = []
                try readEscape(into: &unused, keep: false)
            }
        }

        /// Reads one escape after its backslash; `keep` false only checks it.
        private mutating func readEscape(into utf8: inout [UInt8], keep: Bool) throws(SyntaxError) {
            guard let byte = peek() else { throw fail("unterminated escape") }
            index += 1
            let simple: UInt8
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): simple = byte
            case UInt8(ascii: "b"): simple = 0x08
            case UInt8(ascii: "f"): simple = 0x0C
            case UInt8(ascii: "n"): simple = 0x0A
            case UInt8(ascii: "r"): simple = 0x0D
            case UInt8(ascii: "t"): simple = 0x09
            case UInt8(ascii: "u"):
                var scalar = UInt32(try readHex4())
                if (0xD800...0xDBFF).contains(scalar) {
                    // A high surrogate must be followed by `\u` and a low surrogate.
                    guard peek() == UInt8(ascii: "\\"), peek(offset: 1) == UInt8(ascii: "u") else {
                        throw fail("unpaired surrogate")
                    }
                    index += 2
                    let low = UInt32(try readHex4())
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("unpaired surrogate")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid code point") }
                if keep { utf8.append(contentsOf: UTF8.encode(unicode)!) }
                // NB: the force unwrap is safe: every `Unicode.Scalar` has a UTF-8 encoding.
                return
            default:
                throw fail("invalid escape")
            }
            if keep { utf8.append(simple) }
        }

        private mutating func readHex4() throws(SyntaxError) -> UInt16 {
            var value: UInt16 = 0
            for _ in 0..<4 {
                guard let byte = peek() else { throw fail("unterminated \\u escape") }
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - 48
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - 87
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - 55
                default: throw fail("invalid \\u escape")
                }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }

        // MARK: Bytes

        private func peek(offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        private mutating func skipWhitespace() {
            while let byte = peek(),
                  byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                index += 1
            }
        }

        private mutating func expect(_ byte: UInt8, _ reason: String) throws(SyntaxError) {
            guard peek() == byte else { throw fail(reason) }
            index += 1
        }

        private mutating func expectWord(_ word: StaticString) throws(SyntaxError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count,
                  memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0
                  // NB: the force unwrap is safe: the bounds check above means the buffer
                  // is non-empty, and a non-empty buffer has a base address.
            else { throw fail("invalid literal") }
            index += count
        }

        private func isDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }

        private func fail(_ reason: String) -> SyntaxError {
            SyntaxError(reason: reason, offset: index)
        }
    }
}
