import CSodium

// MARK: - SecretBytes

/// Bytes that must not outlive their use: a data key, a key-encryption key, a passphrase.
///
/// They live in memory from `sodium_malloc` (guard pages around it, kept out of swap where
/// the memory-lock limit allows) and are wiped with `sodium_memzero` before being freed when
/// the last reference goes. Values built on them (`DataKey`, `Passphrase`) copy the
/// reference, never the bytes.
final class SecretBytes: @unchecked Sendable {
    // NB: `@unchecked Sendable` is safe: the bytes are written only by `make`'s `fill`,
    // before the object exists for anyone else, and only read afterwards.
    let count: Int
    private let base: UnsafeMutableRawPointer

    private init(base: UnsafeMutableRawPointer, count: Int) {
        self.base = base
        self.count = count
    }

    deinit {
        sodium_memzero(base, count)
        sodium_free(base)
    }

    // MARK: - Making

    /// `count` bytes (zero allowed: an empty file) written by `fill`; on a failure of
    /// `fill` they are wiped and freed.
    /// `fill` gets the start and the count: a pointer that is never nil, as libsodium's
    /// `nonnull` parameters want.
    static func make(
        count: Int,
        fill: (UnsafeMutablePointer<UInt8>, Int) throws(EncryptionError) -> Void
    ) throws(EncryptionError) -> SecretBytes {
        try SodiumLibrary.ready()
        guard count >= 0, let base = sodium_malloc(max(count, 1)) else { throw .outOfSecureMemory }
        do {
            try fill(base.assumingMemoryBound(to: UInt8.self), count)
        } catch {
            sodium_memzero(base, count)
            sodium_free(base)
            throw error
        }
        return SecretBytes(base: base, count: count)
    }

    /// `count` bytes from libsodium's random source (`randombytes_buf`: the kernel's
    /// `getrandom`).
    static func random(count: Int) throws(EncryptionError) -> SecretBytes {
        try make(count: count) { start, count in randombytes_buf(start, count) }
    }

    /// A copy of the first `prefix` bytes (a passphrase read into a larger buffer).
    func prefix(_ prefix: Int) throws(EncryptionError) -> SecretBytes {
        try SecretBytes.make(count: min(prefix, count)) { start, count in
            start.update(from: base.assumingMemoryBound(to: UInt8.self), count: count)
        }
    }

    // MARK: - Reading

    func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes as a pointer that is never nil, for libsodium calls declared `nonnull`.
    func withPointer<Result>(_ body: (UnsafePointer<UInt8>) -> Result) -> Result {
        body(UnsafePointer(base.assumingMemoryBound(to: UInt8.self)))
    }

    /// Compares in constant time (`sodium_memcmp`), so a comparison leaks no prefix length.
    func hasSameBytes(as other: SecretBytes) -> Bool {
        count == other.count && sodium_memcmp(base, other.base, count) == 0
    }
}

extension SecretBytes: RedactedDescription {
    var redactedSummary: String { "SecretBytes(\(count) bytes, hidden)" }
}
