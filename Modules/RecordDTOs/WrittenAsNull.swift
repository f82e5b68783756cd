// MARK: - WrittenAsNull

/// An optional wire field that Shelf always writes — as `null` when it has no value —
/// and accepts absent when reading (a record written by another client). Synthesized
/// `Codable` would leave a nil field out; the wire shape has the field either way.
@propertyWrapper
public struct WrittenAsNull<Value: Codable & Hashable & Sendable>: Codable, Hashable, Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    /// An absent member reads as nil: synthesized decoding asks for the wrapper by key,
    /// and this overload answers for a key that is not there.
    public func decode<Value>(_ type: WrittenAsNull<Value>.Type, forKey key: Key) throws -> WrittenAsNull<Value> {
        WrittenAsNull(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
