import Domain
import Foundation

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

    /// The body parsed as Kinto's error shape, or nil when it is not one.
    static func parse(_ body: Data) -> KintoErrorBody? {
        guard let first = body.first(where: { !JSONByteScanner.isWhitespace($0) }), first == UInt8(ascii: "{") else { return nil }
        guard let parsed = try? JSONDecoder().decode(KintoErrorBody.self, from: body),
              parsed.code != nil || parsed.errno != nil || parsed.message != nil
        else { return nil }
        return parsed
    }
}
