// MARK: - KeyID

/// A data key's public name: 16 lowercase hex digits, the first 8 bytes of BLAKE2b keyed
/// with the data key over a fixed context (`DataKey.id`).
///
/// Not secret, and it reveals nothing of the key (a MAC of a constant). It lets a sealed
/// record say which key opens it, and a wrapped key prove it holds the key it names.
public struct KeyID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// The number of hex digits: 8 bytes.
    public static let length = 16

    /// - Throws: `EncryptionError.malformed` unless `rawValue` is 16 lowercase hex digits,
    ///   so a key id read from a server is safe to show in a message.
    public init(_ rawValue: String) throws(EncryptionError) {
        guard rawValue.utf8.count == Self.length,
              rawValue.utf8.allSatisfy({ Hex.digitValue($0) != nil })
        else { throw .malformed(reason: "a key id is not \(Self.length) lowercase hex digits") }
        self.rawValue = rawValue
    }

    init(bytes: some Collection<UInt8>) {
        rawValue = Hex.string(bytes)
    }

    public var description: String { rawValue }

    // MARK: - Codable

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
