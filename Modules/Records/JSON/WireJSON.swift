import Domain
import Foundation

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
    /// - Throws: `WireJSONError.notJSON` (with the decoder's words) or `.notAnObject`.
    public static func fields(_ json: Data) throws(WireJSONError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: json)
        } catch {
            throw .notJSON(reason: DecodingErrorText.message(for: error))
        }
        guard case .object(let fields) = value else { throw .notAnObject }
        return fields
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
