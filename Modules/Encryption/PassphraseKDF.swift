import CSodium

// MARK: - PassphraseKDF

/// A passphrase to a 32-byte key-encryption key with Argon2id (`crypto_pwhash`,
/// `crypto_pwhash_ALG_ARGON2ID13`): memory-hard, so guessing passphrases against a
/// wrapped key copied off the server costs the attacker what it costs Shelf, per guess.
public enum PassphraseKDF {
    /// - Parameters:
    ///   - salt: the wrapped key's salt; a new one (`KDFSalt.random()`) for a new wrap.
    ///   - parameters: the cost; `KDFParameters.recommended` for a new wrap.
    /// - Throws: `.keyDerivationFailed` when the memory the parameters ask for is not there.
    public static func derive(
        from passphrase: Passphrase,
        salt: KDFSalt,
        parameters: KDFParameters
    ) throws(EncryptionError) -> KeyEncryptionKey {
        let key = try SecretBytes.make(count: DataKey.length) { (output, count) throws(EncryptionError) in
            let status = passphrase.bytes.withPointer { secret in
                crypto_pwhash(
                    output, UInt64(count),
                    UnsafeRawPointer(secret).assumingMemoryBound(to: CChar.self), UInt64(passphrase.bytes.count),
                    salt.bytes, parameters.opsLimit, Int(parameters.memoryBytes),
                    crypto_pwhash_ALG_ARGON2ID13)
            }
            guard status == 0 else { throw .keyDerivationFailed }
        }
        return KeyEncryptionKey(salt: salt, parameters: parameters, bytes: key)
    }
}
