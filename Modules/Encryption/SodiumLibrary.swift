import CSodium

// MARK: - SodiumLibrary

/// libsodium's start-up, made once for the process before any other call.
///
/// `sodium_init()` chooses the implementations and sets up what `sodium_malloc` and the
/// random source rely on; a second call is harmless, but the first must not race with
/// another. A `static let` is initialised exactly once, under the Swift runtime's own
/// once-guard, whichever thread asks first — so every entry point of this module simply
/// calls `ready()`.
enum SodiumLibrary {
    /// 0 when this call initialised the library, 1 when it already was, -1 on failure.
    private static let status: Int32 = sodium_init()

    /// - Throws: `EncryptionError.libraryUnavailable` when libsodium could not start.
    static func ready() throws(EncryptionError) {
        guard status >= 0 else { throw .libraryUnavailable }
    }
}
