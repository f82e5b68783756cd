import Foundation

// MARK: - ETag

/// An entity tag. Kinto's are the resource's timestamp in quotes: `"1796039015138"`.
public struct ETag: Sendable, Hashable, CustomStringConvertible {
    /// The tag without quotes: `1796039015138`.
    public let value: String
    /// A weak tag (`W/"…"`); Kinto sends none, proxies may.
    public let isWeak: Bool

    public init(value: String, isWeak: Bool = false) {
        self.value = value
        self.isWeak = isWeak
    }

    /// The tag for a Kinto timestamp.
    public init(timestamp: Int) {
        self.init(value: String(timestamp))
    }

    /// Parses a header value: `"123"`, `W/"123"`, or a bare `123` from a lenient server.
    /// Nil for an empty or unbalanced value.
    public init?(headerValue: String) {
        var text = Substring(headerValue.trimmingCharacters(in: .whitespaces))
        var weak = false
        if text.hasPrefix("W/") {
            weak = true
            text = text.dropFirst(2)
        }
        if text.hasPrefix("\"") {
            guard text.count >= 2, text.hasSuffix("\"") else { return nil }
            text = text.dropFirst().dropLast()
        } else if text.contains("\"") {
            return nil
        }
        guard !text.isEmpty, !text.contains("\"") else { return nil }
        self.init(value: String(text), isWeak: weak)
    }

    /// The value to send in `If-Match` / `If-None-Match`: quoted, as the server sent it.
    public var headerValue: String { (isWeak ? "W/" : "") + "\"\(value)\"" }

    /// The Kinto timestamp the tag names, when it is one.
    public var timestamp: Int? { Int(value) }

    public var description: String { headerValue }
}
