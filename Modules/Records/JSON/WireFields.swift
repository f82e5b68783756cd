import Foundation

// MARK: - WireFields

/// The top-level scalar fields of one record's JSON, read without decoding the whole
/// record into a model.
///
/// The store keeps each record's raw bytes exactly as the server sent them and needs
/// only a few fields from them (`id`, `last_modified`, `deleted`, `title`, …) to
/// maintain its sort and search columns. Foundation's decoders cost far more than that
/// on Linux, so `JSONByteScanner` reads the object once, validating all of it, and this
/// keeps the strings, booleans, numbers and nulls of its top level; nested arrays and
/// objects are checked and skipped.
///
/// NB: one scanner reads both a pulled page and each record's fields. Reading the fields
/// through the validating scanner costs ~12% more instructions per book record than the
/// lenient reader it replaced did (callgrind, 20,000 records), a small part of storing a
/// page, which SQLite dominates; in exchange the store no longer accepts a record its
/// page scanner would refuse.
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

    /// No members: what a reader fills with `set` or `readIndexedMember`.
    public init() {}

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

    public mutating func reserve(_ count: Int) {
        members.reserveCapacity(count)
    }

    /// Sets a member (the last of a repeated name wins, as a dictionary would).
    public mutating func set(_ name: String, _ value: Value) {
        if let index = members.firstIndex(where: { $0.name == name }) {
            members[index].value = value
        } else {
            members.append((name, value))
        }
    }

    /// Adds a member the caller knows is not there yet: a name read inside one object,
    /// whose names `JSONByteScanner.forEachMember` keeps unique. No search: a pulled page
    /// adds a few members to each of its records, and comparing every name with the earlier
    /// ones was a tenth of opening a sealed record.
    public mutating func appendNew(_ name: String, _ value: Value) {
        members.append((name, value))
    }

    /// A member name to keep, as bytes to compare with and as the text to store.
    public struct Name: Sendable {
        let utf8: [UInt8]
        let text: String

        public init(_ text: String) {
            self.utf8 = Array(text.utf8)
            self.text = text
        }
    }

    /// Reads the top-level fields of a JSON object.
    /// - Parameter names: keep only these members (the rest are checked and skipped
    ///   without decoding them); nil keeps every member.
    /// - Throws: `JSONScanError` when the bytes are not one JSON object.
    public static func parse(_ data: Data, keeping names: [Name]? = nil) throws(JSONScanError) -> WireFields {
        try JSONByteScanner.withScanner(over: data) { (scanner) throws(JSONScanError) in
            var fields = WireFields()
            if let names { fields.members.reserveCapacity(names.count) }
            try scanner.forEachMember { key, scanner throws(JSONScanError) in
                if let name = scanner.name(key, keeping: names) {
                    // NB: `forEachMember` refuses a name given twice, so this one is new.
                    fields.appendNew(name, try scanner.readWireValue())
                } else {
                    try scanner.skipValue()
                }
            }
            try scanner.expectEnd()
            return fields
        }
    }
}

// MARK: - Reading members

extension JSONByteScanner {
    /// A member name as text; nil when it is not one of `names` (nil keeps every name).
    func name(_ token: StringToken, keeping names: [WireFields.Name]?) -> String? {
        guard let names else { return decode(token) }
        return index(of: token, in: names).map { names[$0].text }
    }

    /// The position of a member name among `names`; nil when it is none of them.
    func index(of token: StringToken, in names: [WireFields.Name]) -> Int? {
        if token.hasEscapes {
            // An escaped name (`"\u0069d"` is `"id"`): decode it to compare.
            let decoded = decode(token)
            return names.firstIndex { $0.text == decoded }
        }
        let start = base + token.start, count = token.end - token.start
        return names.firstIndex { name in
            name.utf8.count == count
                && name.utf8.withUnsafeBufferPointer { utf8 in utf8.baseAddress.map { memcmp($0, start, count) == 0 } ?? true }
        }
    }

    /// Reads the value of member `key` into `fields` when it is one of `names` (a member a
    /// store column is computed from, `RecordIndexing.wireNames`): a reader that walks a
    /// record's members for its own reasons gathers them in the same pass. Call it from
    /// `forEachMember` of the object `fields` is read from, which keeps names unique.
    /// - Returns: whether it was one of them; if not, the value is left for the caller.
    public mutating func readIndexedMember(
        _ key: StringToken, of names: [WireFields.Name], into fields: inout WireFields
    ) throws(JSONScanError) -> Bool {
        guard let index = index(of: key, in: names) else { return false }
        // NB: `forEachMember` refuses a name given twice, so this one is new.
        fields.appendNew(names[index].text, try readWireValue())
        return true
    }

    /// Reads one member's value as a `WireFields.Value`, validating it.
    mutating func readWireValue() throws(JSONScanError) -> WireFields.Value {
        skipWhitespace()
        guard let byte = peek else { throw fail("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "\""):
            return .string(decode(try scanString()))
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return .bool(try readBool("a value"))
        case UInt8(ascii: "n"):
            try scanLiteral("null")
            return .null
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            try skipValue()
            return .nested
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = offset
            let isInteger = try scanNumber()
            let text = String(decoding: UnsafeBufferPointer(start: base + start, count: offset - start), as: UTF8.self)
            if isInteger, let number = Int64(text) { return .integer(number) }
            guard let number = Double(text) else { throw fail("number out of range", at: start) }
            return .real(number)
        default:
            throw fail("unexpected character '\(Self.printable(byte))', expected a value")
        }
    }
}
