import Foundation
import Records
import Vocabulary

// MARK: - KintoErrorBody

/// Kinto's error response: `{"code": 412, "errno": 114, "error": "Precondition Failed",
/// "message": "Resource was modified meanwhile", "details": {...}}`.
///
/// Every field is optional: a proxy in front of Kinto may answer with anything.
public struct KintoErrorBody: Sendable, Hashable, Codable {
    /// The HTTP status, repeated.
    public var code: Int?
    /// Kinto's own error number (104 missing auth, 114 modified meanwhile, 121 forbidden…).
    public var errno: Int?
    /// The status's reason phrase.
    public var error: String?
    public var message: String?
    /// Kinto's details, whose shape depends on the error.
    public var details: JSONValue?

    public init(code: Int? = nil, errno: Int? = nil, error: String? = nil, message: String? = nil, details: JSONValue? = nil) {
        self.code = code
        self.errno = errno
        self.error = error
        self.message = message
        self.details = details
    }

    /// The body parsed as Kinto's error shape, or nil when it is not one (or is larger
    /// than `maximumBodyBytes`). Its texts are cut to `maximumTextLength` characters: they
    /// end up in one line of an error message, not in a page of output.
    static func parse(_ body: Data) -> KintoErrorBody? {
        guard body.count <= maximumBodyBytes else { return nil }
        guard let first = body.first(where: { !JSONByteScanner.isWhitespace($0) }), first == UInt8(ascii: "{") else { return nil }
        guard var parsed = try? JSONDecoder().decode(KintoErrorBody.self, from: body),
              parsed.code != nil || parsed.errno != nil || parsed.message != nil
        else { return nil }
        parsed.error = parsed.error.map(Self.cut)
        parsed.message = parsed.message.map(Self.cut)
        return parsed
    }

    /// Kinto's error bodies are a few hundred bytes; 1 MiB leaves room for `details`
    /// (a 412's `existing` record) without parsing an arbitrary document.
    static let maximumBodyBytes = 1 << 20

    /// What Kinto's `errno` means, in words (kinto/core/errors.py's `ERRORS`), so an
    /// error never ends in a bare number; nil for a number Kinto does not define.
    public static func meaning(ofErrno errno: Int) -> String? {
        switch errno {
        case 104: "no credentials, or credentials the server does not accept"
        case 105: "invalid credentials"
        case 106: "the request body is not valid JSON"
        case 107: "invalid parameters"
        case 108: "missing parameters"
        case 109: "invalid data sent"
        case 110: "invalid record id"
        case 111: "no such resource"
        case 112: "missing Content-Length"
        case 113: "the request is too large"
        case 114: "the record changed meanwhile"
        case 115: "method not allowed"
        case 116: "API version not available"
        case 117: "too many requests"
        case 121: "forbidden"
        case 122: "a constraint was violated"
        case 201: "the server's storage failed"
        case 202: "the service is deprecated"
        case 999: "an error the server did not name"
        default: nil
        }
    }
    static let maximumTextLength = 500

    private static func cut(_ text: String) -> String {
        text.count <= maximumTextLength ? text : String(text.prefix(maximumTextLength - 1)) + "…"
    }
}
