// MARK: - LocalKeyStore

/// The unwrapped keyring kept on this device, so a cron run of `shelf-sync` opens records
/// without asking for the passphrase; `remove()` is `shelf encryption lock`.
///
/// One file, 0600, in a 0700 folder the user owns, written atomically (`PrivateFile`)
/// and read with `O_NOFOLLOW`, refused unless it is a regular file of this user with no
/// group or other permission. Why a file and not the kernel keyring: Modules/Encryption/README.md,
/// "Where unwrapped keys live".
///
/// The file's bytes, read and written only through secure memory:
/// `SHELFKR1` (8 bytes), the number of keys N (1 byte, 1...255), then N keys of 32 bytes,
/// the current one first. Key ids are derived again on reading, not stored.
public struct LocalKeyStore: Sendable {
    public let path: String

    private static let magic = Array("SHELFKR1".utf8)
    public static let maximumKeys = 255
    private static let maximumBytes = magic.count + 1 + maximumKeys * DataKey.length

    /// - Parameter path: the key file, one per account (its folder is made 0700).
    public init(path: String) {
        self.path = path
    }

    /// Replaces the key file with `keyring`.
    /// - Throws: `.keyFile` when the folder is unsafe or the write fails; `.malformed`
    ///   for a keyring of more than 255 keys.
    public func save(_ keyring: Keyring) throws(EncryptionError) {
        let keys = keyring.keys
        guard keys.count <= Self.maximumKeys else {
            throw .malformed(reason: "a key file holds at most \(Self.maximumKeys) keys")
        }
        let bytes = try SecretBytes.make(count: Self.magic.count + 1 + keys.count * DataKey.length) { start, _ in
            start.update(from: Self.magic, count: Self.magic.count)
            start[Self.magic.count] = UInt8(keys.count)
            for (index, key) in keys.enumerated() {
                key.bytes.withPointer { key in
                    (start + Self.magic.count + 1 + index * DataKey.length).update(from: key, count: DataKey.length)
                }
            }
        }
        do {
            try PrivateFile.writeAtomically(bytes, to: path)
        } catch {
            throw .keyFile(path: path, problem: error)
        }
    }

    /// The keyring, or nil when there is no key file (the device is locked).
    /// - Throws: `.keyFile` for a link, another user's file or loose permissions;
    ///   `.malformed` for a file Shelf did not write.
    public func load() throws(EncryptionError) -> Keyring? {
        let contents: SecretBytes?
        do {
            contents = try PrivateFile.contents(path, policy: .keyFile, maximumBytes: Self.maximumBytes)
        } catch {
            throw .keyFile(path: path, problem: error)
        }
        guard let contents else { return nil }
        let keys = try Self.keys(in: contents)
        // NB: `keys[0]` is safe: `keys(in:)` returns at least one key or throws.
        return Keyring(current: keys[0], older: Array(keys.dropFirst()))
    }

    /// Deletes the key file; false when there was none. Unlinking is all a file system
    /// offers: overwriting first would not reach copies a journal or SSD keeps.
    @discardableResult
    public func remove() throws(EncryptionError) -> Bool {
        do {
            return try PrivateFile.remove(path)
        } catch {
            throw .keyFile(path: path, problem: error)
        }
    }

    private static func keys(in contents: SecretBytes) throws(EncryptionError) -> [DataKey] {
        let header = magic.count + 1
        let count = contents.withUnsafeBytes { bytes in
            bytes.count >= header && bytes.prefix(magic.count).elementsEqual(magic) ? Int(bytes[magic.count]) : 0
        }
        guard count >= 1, contents.count == header + count * DataKey.length else {
            throw .malformed(reason: "the key file is not one Shelf wrote")
        }
        var keys: [DataKey] = []
        for index in 0 ..< count {
            let offset = header + index * DataKey.length
            let bytes = try SecretBytes.make(count: DataKey.length) { start, count in
                contents.withPointer { source in start.update(from: source + offset, count: count) }
            }
            keys.append(try DataKey(bytes: bytes))
        }
        return keys
    }
}

extension LocalKeyStore: CustomStringConvertible {
    public var description: String { "LocalKeyStore(\(path))" }
}
