import CSodium

// MARK: - XChaCha20Poly1305

/// The one AEAD Shelf seals with: XChaCha20-Poly1305-IETF from libsodium.
///
/// Its 24-byte nonce is long enough to be drawn at random for every seal with no counter
/// to keep across devices (a collision is negligible for 2^64 seals under one key).
enum XChaCha20Poly1305 {
    static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// Seals `plaintext` under `key` with a fresh random nonce (`nonce` is for the
    /// known-answer vectors only: a nonce must never be used twice under one key).
    static func seal(
        _ plaintext: [UInt8],
        associatedData: [UInt8],
        key: SecretBytes,
        nonce: [UInt8]? = nil
    ) throws(EncryptionError) -> (nonce: [UInt8], ciphertext: [UInt8]) {
        try SodiumLibrary.ready()
        if let nonce, nonce.count != nonceLength { throw .malformed(reason: "a nonce is not \(nonceLength) bytes") }
        return plaintext.withUnsafeBufferPointer { plaintext in
            seal(UnsafeRawBufferPointer(plaintext), associatedData: associatedData, key: key, nonce: nonce)
        }
    }

    /// Seals a secret (a data key) without copying it out of secure memory.
    static func seal(
        _ plaintext: SecretBytes,
        associatedData: [UInt8],
        key: SecretBytes,
        nonce: [UInt8]? = nil
    ) throws(EncryptionError) -> (nonce: [UInt8], ciphertext: [UInt8]) {
        try SodiumLibrary.ready()
        if let nonce, nonce.count != nonceLength { throw .malformed(reason: "a nonce is not \(nonceLength) bytes") }
        return plaintext.withUnsafeBytes { plaintext in
            seal(plaintext, associatedData: associatedData, key: key, nonce: nonce)
        }
    }

    private static func seal(
        _ plaintext: UnsafeRawBufferPointer,
        associatedData: [UInt8],
        key: SecretBytes,
        nonce given: [UInt8]?
    ) -> (nonce: [UInt8], ciphertext: [UInt8]) {
        var nonce = given ?? [UInt8](repeating: 0, count: nonceLength)
        if given == nil { randombytes_buf(&nonce, nonceLength) }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var written: UInt64 = 0
        key.withPointer { key in
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                &ciphertext, &written,
                plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                associatedData, UInt64(associatedData.count),
                nil, nonce, key)
            // NB: encryption cannot fail for a message this size; it always returns 0.
        }
        return (nonce, ciphertext)
    }

    /// The plaintext's length for `ciphertextLength` bytes, nil when shorter than a tag.
    static func plaintextLength(ofCiphertext ciphertextLength: Int) -> Int? {
        ciphertextLength >= tagLength ? ciphertextLength - tagLength : nil
    }

    /// Opens into `output` (exactly the plaintext's length); false when the tag does not
    /// verify: altered bytes, another key, or other associated data.
    static func open(
        _ ciphertext: [UInt8],
        nonce: [UInt8],
        associatedData: [UInt8],
        key: SecretBytes,
        into output: UnsafeMutablePointer<UInt8>,
        count: Int
    ) -> Bool {
        guard nonce.count == nonceLength,
              plaintextLength(ofCiphertext: ciphertext.count) == count
        else { return false }
        var written: UInt64 = 0
        let status = key.withPointer { key in
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                output, &written,
                nil, ciphertext, UInt64(ciphertext.count),
                associatedData, UInt64(associatedData.count),
                nonce, key)
        }
        return status == 0
    }
}
