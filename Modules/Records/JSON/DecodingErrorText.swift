import Foundation

// MARK: - DecodingErrorText

/// A `JSONDecoder` failure in the words people read JSON with: the coding path as
/// `data[3].author_name`, the message as "expected a string, found a number".
public enum DecodingErrorText {
    /// The failure's coding path written after `prefix` (`data (id b1)` + `.title`).
    public static func path(of error: any Error, after prefix: String = "") -> String {
        var path = prefix
        if let error = error as? DecodingError {
            for key in codingPath(of: error) {
                if let index = key.intValue {
                    path += "[\(index)]"
                } else {
                    path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
        }
        return path
    }

    public static func message(for error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(Self.name(of: type))\(Self.detail(context))"
        case .valueNotFound(let type, let context):
            return "expected \(Self.name(of: type)), found null\(Self.detail(context))"
        case .keyNotFound(let key, _):
            return "missing field \"\(key.stringValue)\""
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return "malformed JSON: \(underlying ?? context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }

    private static func codingPath(of error: DecodingError) -> [any CodingKey] {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.codingPath
        case .keyNotFound(_, let context):
            return context.codingPath
        @unknown default:
            return []
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type: "an integer"
        case is Double.Type: "a number"
        default: "\(type)"
        }
    }

    private static func detail(_ context: DecodingError.Context) -> String {
        // Foundation's messages ("Expected to decode Bool but found a string instead.")
        // say what was found, which is the useful half.
        let text = context.debugDescription
        guard let range = text.range(of: "but found ") else { return "" }
        var found = String(text[range.upperBound...])
        if found.hasSuffix(" instead.") { found.removeLast(" instead.".count) }
        return ", found \(found)"
    }
}
