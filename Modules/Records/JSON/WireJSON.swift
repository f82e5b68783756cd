import Foundation
import Vocabulary

// MARK: - WireJSON

/// The JSON Shelf writes as a record's bytes (stored, pushed, exported): keys sorted and
/// slashes left unescaped, so the same fields always give the same bytes — a repeated
/// push or a comparison with what was sent is byte for byte.
public enum WireJSON {
    /// An encoder set up this way, for values that are not field dictionaries (DTOs).
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A record object's bytes.
    public static func data(_ fields: [String: JSONValue]) throws -> Data {
        try encoder().encode(fields)
    }

    /// The top-level fields of a record's bytes: the one way Shelf reads JSON into
    /// fields, for merges, edits, imports and exports alike.
    ///
    /// Read by `JSONByteScanner`, the same reader that finds a pulled record's `id`,
    /// `last_modified` and envelope, so the fields and those members always come from
    /// one reading of the bytes: an object that names a member twice is refused at any
    /// depth, never resolved one way here and another way there.
    /// - Throws: `WireJSONError.notJSON` (with the byte offset) or `.notAnObject`.
    public static func fields(_ json: Data) throws(WireJSONError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONByteScanner.withScanner(over: json) { (scanner) throws(JSONScanError) in
                let value = try scanner.readJSONValue()
                try scanner.expectEnd()
                return value
            }
        } catch {
            throw .notJSON(reason: error.description)
        }
        guard case .object(let fields) = value else { throw .notAnObject }
        return fields
    }
}

// MARK: - Values

extension JSONByteScanner {
    /// Reads one value of any kind as a `JSONValue`, validating it; a number that does
    /// not fit a `Double` (`1e400`) is refused rather than read as infinity.
    public mutating func readJSONValue() throws(JSONScanError) -> JSONValue {
        skipWhitespace()
        guard let byte = peek else { throw fail("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "\""):
            return .string(decode(try scanString()))
        case UInt8(ascii: "{"):
            var object: [String: JSONValue] = [:]
            try forEachMember { key, scanner throws(JSONScanError) in
                object[scanner.decode(key)] = try scanner.readJSONValue()
            }
            return .object(object)
        case UInt8(ascii: "["):
            var array: [JSONValue] = []
            try forEachElement { scanner throws(JSONScanError) in array.append(try scanner.readJSONValue()) }
            return .array(array)
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return .bool(try readBool("a value"))
        case UInt8(ascii: "n"):
            try scanLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = offset
            _ = try scanNumber()
            let text = String(decoding: UnsafeBufferPointer(start: base + start, count: offset - start), as: UTF8.self)
            guard let number = Double(text), number.isFinite else { throw fail("number out of range", at: start) }
            return .number(number)
        default:
            throw fail("unexpected character '\(Self.printable(byte))', expected a value")
        }
    }
}

// MARK: - WireJSONError

/// Why bytes are not a record's fields.
public enum WireJSONError: Error, Equatable, CustomStringConvertible {
    /// They are not JSON at all.
    case notJSON(reason: String)
    /// They are JSON, but not one object.
    case notAnObject

    public var description: String {
        switch self {
        case .notJSON(let reason): "not JSON: \(reason)"
        case .notAnObject: "not a JSON object"
        }
    }
}
