// MARK: - ParameterDecoder

/// Makes a command's value from its parsed parameters, through the command's
/// synthesized `init(from:)`: each `@Option`, `@Flag` and `@Argument` property is
/// asked for by its name and made with its value. Nothing else can be decoded.
struct ParameterDecoder: Decoder {
    /// Each parameter's value by its property's name; every parameter has one.
    let values: [String: any Sendable]

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ParameterContainer<Key>(values: values))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw NotFromCommandLine() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw NotFromCommandLine() }

    /// The command `type` with `values`.
    static func command(_ type: any ParsableCommand.Type, values: [String: any Sendable]) throws(ParseError) -> any ParsableCommand {
        do {
            return try type.init(from: ParameterDecoder(values: values))
        } catch let error as ParseError {
            throw error
        } catch {
            // NB: a command whose stored properties are all parameters always decodes.
            throw .invalid("Internal error: \(type.configuration.name) cannot be made from its parameters: \(error)")
        }
    }
}

// MARK: - ParameterContainer

private struct ParameterContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let values: [String: any Sendable]

    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { values.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        // An option group is made from the same values: its parameters share the
        // command's namespace.
        if let group = T.self as? any DeclaredGroup.Type {
            guard let made = try group.init(parsedValues: values) as? T else { throw NotFromCommandLine() }
            return made
        }
        guard let parameter = T.self as? any DeclaredParameter.Type, let value = values[key.stringValue] else {
            throw NotFromCommandLine()
        }
        guard let made = try parameter.init(parsedValue: value) as? T else { throw NotFromCommandLine() }
        return made
    }

    // MARK: Everything else: commands hold parameters only

    func decodeNil(forKey key: Key) throws -> Bool { throw NotFromCommandLine() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { throw NotFromCommandLine() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { throw NotFromCommandLine() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw NotFromCommandLine() }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw NotFromCommandLine() }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { throw NotFromCommandLine() }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw NotFromCommandLine() }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw NotFromCommandLine() }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { throw NotFromCommandLine() }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { throw NotFromCommandLine() }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw NotFromCommandLine() }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw NotFromCommandLine() }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw NotFromCommandLine() }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw NotFromCommandLine() }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw NotFromCommandLine() }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw NotFromCommandLine()
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw NotFromCommandLine() }
    func superDecoder() throws -> any Decoder { throw NotFromCommandLine() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw NotFromCommandLine() }
}
