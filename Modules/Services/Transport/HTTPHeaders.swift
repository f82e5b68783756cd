// MARK: - HTTPHeaders

/// HTTP header fields in the order they were given, looked up case-insensitively
/// (`headers["etag"]` finds `ETag`). Values of secret-bearing fields never appear in
/// `description`.
public struct HTTPHeaders: Sendable, Hashable {
    public typealias Field = (name: String, value: String)

    private var names: [String] = []
    private var values: [String] = []
    /// Lower-cased names, kept beside the originals so lookups don't fold case each time.
    private var keys: [String] = []

    public init() {}

    public init(_ fields: [(String, String)]) {
        for (name, value) in fields { add(name, value) }
    }

    public var count: Int { names.count }
    public var isEmpty: Bool { names.isEmpty }

    /// The first value of the field named `name` (any case), or nil.
    public subscript(name: String) -> String? {
        get {
            let key = name.lowercased()
            return keys.firstIndex(of: key).map { values[$0] }
        }
        set {
            remove(name)
            if let newValue { add(name, newValue) }
        }
    }

    /// Every value of the field named `name` (any case), in order.
    public func values(for name: String) -> [String] {
        let key = name.lowercased()
        return keys.indices.filter { keys[$0] == key }.map { values[$0] }
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func add(_ name: String, _ value: String) {
        names.append(name)
        values.append(value)
        keys.append(name.lowercased())
    }

    public mutating func remove(_ name: String) {
        let key = name.lowercased()
        for index in keys.indices.reversed() where keys[index] == key {
            names.remove(at: index)
            values.remove(at: index)
            keys.remove(at: index)
        }
    }

    public func contains(_ name: String) -> Bool { keys.contains(name.lowercased()) }

    /// Fields whose values are secrets: redacted in every description.
    static let secretFieldKeys: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
}

// MARK: - Conformances

extension HTTPHeaders: Sequence {
    public func makeIterator() -> some IteratorProtocol<Field> {
        zip(names, values).lazy.map { (name: $0, value: $1) }.makeIterator()
    }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }
}

extension HTTPHeaders: CustomStringConvertible, CustomReflectable {
    public var description: String {
        "[" + redactedFields.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "]"
    }

    /// `dump()` and debuggers show the redacted fields, not the stored values.
    public var customMirror: Mirror {
        Mirror(self, unlabeledChildren: redactedFields.map { "\($0.name): \($0.value)" }, displayStyle: .collection)
    }

    private var redactedFields: [Field] {
        zip(zip(names, values), keys).map { pair, key in
            (name: pair.0, value: Self.secretFieldKeys.contains(key) ? "<redacted>" : pair.1)
        }
    }
}
