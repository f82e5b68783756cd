// MARK: - Route

/// A place in the app, and the deep link that names it.
///
/// Links have the form `shelf://<kind>/<value>` with `kind` one of `book`, `author`,
/// `note`. The value is percent-encoded in the link and decoded in the route, so
/// `shelf://author/Ursula%20K.%20Le%20Guin` and `.author("Ursula K. Le Guin")` are the
/// same place and formatting then parsing gives back the route unchanged.
public enum Route: Hashable, Sendable, Codable {
    case book(Book.ID)
    case author(String)
    case note(Note.ID)

    public static let scheme = "shelf"

    public enum Kind: String, CaseIterable, Sendable {
        case book, author, note
    }

    public var kind: Kind {
        switch self {
        case .book: .book
        case .author: .author
        case .note: .note
        }
    }

    public var value: String {
        switch self {
        case .book(let id), .note(let id): id
        case .author(let name): name
        }
    }

    /// The deep link, e.g. `shelf://book/b-42`.
    public var url: String {
        "\(Self.scheme)://\(kind.rawValue)/\(PercentEncoding.encode(value))"
    }

    // MARK: Parsing

    /// Parses a deep link, rejecting anything it would have to guess about.
    /// - Throws: `RouteError` saying what is wrong with the link.
    public init(url raw: String) throws(RouteError) {
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw .empty }
        guard let schemeEnd = text.range(of: "://") else { throw .notALink(raw) }
        let scheme = String(text[..<schemeEnd.lowerBound])
        guard scheme.lowercased() == Self.scheme else { throw .unsupportedScheme(scheme) }
        let rest = text[schemeEnd.upperBound...]
        guard !rest.contains("?"), !rest.contains("#") else { throw .unexpectedQueryOrFragment(raw) }

        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let kindText = parts[0]
        guard !kindText.isEmpty else { throw .missingKind }
        guard let kind = Kind(rawValue: kindText.lowercased()) else { throw .unknownKind(kindText) }
        guard parts.count >= 2, !parts[1].isEmpty else { throw .missingValue(kind) }
        guard parts.count == 2 else { throw .extraPathComponents(raw) }
        guard let value = PercentEncoding.decode(parts[1]) else { throw .invalidPercentEncoding(parts[1]) }
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty else { throw .missingValue(kind) }

        switch kind {
        case .book:
            guard let id = try? RecordID.validate(value) else { throw .invalidIdentifier(kind, value) }
            self = .book(id)
        case .note:
            guard let id = try? RecordID.validate(value) else { throw .invalidIdentifier(kind, value) }
            self = .note(id)
        case .author:
            self = .author(value)
        }
    }
}

// MARK: - RouteError

/// Why a deep link was refused.
public enum RouteError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case notALink(String)
    case unsupportedScheme(String)
    case missingKind
    case unknownKind(String)
    case missingValue(Route.Kind)
    case extraPathComponents(String)
    case unexpectedQueryOrFragment(String)
    case invalidPercentEncoding(String)
    case invalidIdentifier(Route.Kind, String)

    public var description: String {
        let kinds = Route.Kind.allCases.map(\.rawValue).joined(separator: ", ")
        switch self {
        case .empty:
            return "the link is empty"
        case .notALink(let text):
            return "'\(text)' is not a link; expected shelf://<\(kinds.replacingOccurrences(of: ", ", with: "|"))>/<value>"
        case .unsupportedScheme(let scheme):
            return "unsupported scheme '\(scheme)'; links start with shelf://"
        case .missingKind:
            return "the link names no kind; expected one of: \(kinds)"
        case .unknownKind(let kind):
            return "unknown link kind '\(kind)'; expected one of: \(kinds)"
        case .missingValue(let kind):
            return "the \(kind.rawValue) link has no \(kind == .author ? "name" : "id") after '\(kind.rawValue)/'"
        case .extraPathComponents(let text):
            return "'\(text)' has more than one value; percent-encode '/' inside a value as %2F"
        case .unexpectedQueryOrFragment(let text):
            return "'\(text)' has a query or fragment, which shelf links do not use"
        case .invalidPercentEncoding(let text):
            return "'\(text)' is not valid percent-encoding (a '%' must be followed by two hex digits of UTF-8)"
        case .invalidIdentifier(let kind, let value):
            return "'\(value)' is not a valid \(kind.rawValue) id (letters, digits, '-' and '_')"
        }
    }
}

// MARK: - Percent-encoding

/// RFC 3986 percent-encoding of a path segment: everything but unreserved characters
/// is encoded as UTF-8 bytes, so any value round-trips exactly.
enum PercentEncoding {
    static func encode(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            if isUnreserved(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + hex(byte >> 4) + hex(byte & 0x0F)
            }
        }
        return out
    }

    /// - Returns: nil when a `%` is not followed by two hex digits or the bytes are not UTF-8.
    static func decode(_ text: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue),
                      let low = iterator.next().flatMap(hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hex(_ nibble: UInt8) -> String {
        String(UnicodeScalar(nibble < 10 ? nibble + 48 : nibble + 55))
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - 55
        default: nil
        }
    }
}
