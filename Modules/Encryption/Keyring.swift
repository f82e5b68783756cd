// MARK: - Keyring

/// The data keys a device can open records with: the current one, which every new seal
/// uses, and those rotated out, kept so records sealed before a rotation still open
/// until they are sealed again.
public struct Keyring: Sendable {
    public let current: DataKey
    /// Older keys, most recent first; none has the current key's id.
    public let older: [DataKey]

    public init(current: DataKey, older: [DataKey] = []) {
        self.current = current
        var seen: Set<KeyID> = [current.id]
        self.older = older.filter { seen.insert($0.id).inserted }
    }

    /// Every key, the current one first.
    public var keys: [DataKey] { [current] + older }

    public func key(for id: KeyID) -> DataKey? {
        // NB: the current key first, without building `keys`: every record opened asks.
        current.id == id ? current : older.first { $0.id == id }
    }

    /// `new` becomes current and the current key the most recent older one
    /// (`shelf encryption rotate`).
    public func rotated(to new: DataKey) -> Keyring {
        Keyring(current: new, older: [current] + older)
    }
}

extension Keyring: RedactedDescription {
    public var redactedSummary: String {
        "Keyring(current: \(current.id), older: [\(older.map(\.id.rawValue).joined(separator: ", "))])"
    }
}
