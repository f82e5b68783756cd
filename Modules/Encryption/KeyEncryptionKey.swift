// MARK: - KeyEncryptionKey

/// The key a passphrase becomes (`PassphraseKDF.derive`): it wraps data keys and nothing
/// else, and remembers the salt and parameters it came from, so one derivation can open
/// every wrapped key that shares them (the current key and those rotated out).
public struct KeyEncryptionKey: Sendable {
    public let salt: KDFSalt
    public let parameters: KDFParameters
    let bytes: SecretBytes

    init(salt: KDFSalt, parameters: KDFParameters, bytes: SecretBytes) {
        self.salt = salt
        self.parameters = parameters
        self.bytes = bytes
    }
}

extension KeyEncryptionKey: RedactedDescription {
    public var redactedSummary: String {
        "KeyEncryptionKey(argon2id13, ops: \(parameters.opsLimit), mem: \(parameters.memoryBytes), hidden)"
    }
}
