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

    /// The top-level fields of a record's bytes.
    /// - Throws: `DecodingError` when the bytes are not one JSON object.
    public static func fields(_ json: Data) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: json)
    }
}
