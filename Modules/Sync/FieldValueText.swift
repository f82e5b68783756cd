import Foundation
import Domain

// MARK: - FieldValueText

/// A value a person writes for a field (`shelf resolve --set title=…`, a line of the
/// `--edit` form), read by the type the field already has in the conflict — so a title
/// needs no quotes and a number is not taken for text:
///
/// | the field's values are | the text is read as                                          |
/// |------------------------|--------------------------------------------------------------|
/// | text                   | the text as written; in double quotes, a JSON string (`"null"`, `"  spaced  "`, `"line\nbreak"`) |
/// | numbers                | a number (`3`, `2.5`)                                        |
/// | `true` / `false`       | `true` or `false`                                            |
/// | anything else          | JSON (`[1, 2]`, `{"a": 1}`)                                  |
///
/// `null` (unquoted) is JSON null for every field. Whether the record may hold that
/// value is for its collection's rules to say (`RecordRules`).
public enum FieldValueText {
    /// The kind of value a field holds, from its values in the conflict.
    public enum Kind: String, Sendable {
        case text, number, bool, json

        /// What a refused value should have been, for messages.
        var expectation: String {
            switch self {
            case .text: "text (or a JSON string in double quotes)"
            case .number: "a number"
            case .bool: "true or false"
            case .json: "a JSON value"
            }
        }
    }

    /// The field's kind: text when any value is text, else a number, else a bool, else JSON.
    public static func kind(of values: [JSONValue?]) -> Kind {
        let present = values.compactMap { $0 }
        if present.contains(where: { if case .string = $0 { true } else { false } }) { return .text }
        if present.contains(where: { if case .number = $0 { true } else { false } }) { return .number }
        if present.contains(where: { if case .bool = $0 { true } else { false } }) { return .bool }
        return present.contains(where: { $0 != .null }) ? .json : .text
    }

    /// - Throws: `FieldDecisionError.badValue` when the text is not a value of the kind.
    public static func value(_ text: String, field: String, kind: Kind) throws(FieldDecisionError) -> JSONValue {
        if text == "null" { return .null }
        switch kind {
        case .text:
            guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return .string(text) }
            guard case .string(let string)? = json(text) else { throw .badValue(field: field, text: text, expected: kind.expectation) }
            return .string(string)
        case .number:
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite else {
                throw .badValue(field: field, text: text, expected: kind.expectation)
            }
            return .number(number)
        case .bool:
            switch text.trimmingCharacters(in: .whitespaces) {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: throw .badValue(field: field, text: text, expected: kind.expectation)
            }
        case .json:
            guard let value = json(text) else { throw .badValue(field: field, text: text, expected: kind.expectation) }
            return value
        }
    }

    /// A value written so that `value(_:field:kind:)` reads it back as it is: text in
    /// double quotes as JSON writes it, everything else as JSON.
    public static func written(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // NB: encoding a JSONValue cannot fail (no non-finite numbers reach it: JSON has none).
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    private static func json(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }
}
