// MARK: - EncryptionError

/// Why sealing, opening, wrapping or keeping a key failed.
///
/// Every case carries only what is safe to show: a record's address, a key id (derived,
/// not secret), a path, a file's mode, a reason written by Shelf. Never key bytes, a
/// passphrase, a record's plaintext or bytes a server sent.
public enum EncryptionError: Error, Equatable, Sendable {
    // MARK: - The library

    /// `sodium_init()` failed: no cryptography is possible in this process.
    case libraryUnavailable
    /// `sodium_malloc` refused the memory that keys and passphrases are kept in.
    case outOfSecureMemory

    // MARK: - Passphrases and keys

    /// A passphrase with no characters (an empty file, an empty prompt).
    case emptyPassphrase
    /// A passphrase longer than `maximum` bytes.
    case passphraseTooLong(maximum: Int)
    /// Argon2id parameters outside the bounds Shelf accepts (`KDFParameters`).
    case invalidKDFParameters(reason: String)
    /// Argon2id could not run, for lack of the memory its parameters ask for.
    case keyDerivationFailed
    /// The passphrase does not open the wrapped key (or the wrapped key was altered).
    case wrongPassphrase
    /// A key opened, but its id is not the one its wrapper or file named.
    case keyIDMismatch(expected: KeyID, found: KeyID)
    /// A wrapped key or envelope of a format version this Shelf does not know.
    case unsupportedFormat(version: Int)

    // MARK: - The keyring

    /// The keyring's manifest does not verify under the reader's keys: the server (or
    /// whoever wrote it) altered it, or wrote one without the reader's keys.
    case keyringNotAuthentic(reason: String)
    /// The passphrase opens the keyring's keys, but the entry that matters (the current
    /// key's) is missing, altered or does not open.
    case keyringDamaged(String)
    /// The keyring is older than one this device has seen: put back by the server.
    case keyringRolledBack(seen: Int64, found: Int64)

    // MARK: - Records

    /// A sealed record's ciphertext was altered, or it was sealed for another record,
    /// collection or bucket: AEAD cannot tell these apart, so the record opened is named.
    case tampered(record: RecordAddress)
    /// A record sealed with a key this keyring does not hold.
    case unknownKey(KeyID)
    /// A plaintext record where a sealed one was expected.
    case notSealed(record: RecordAddress)
    /// A sealed record, wrapped key or key file whose shape is wrong.
    case malformed(reason: String)

    // MARK: - Files

    /// The local key file could not be used as it is.
    case keyFile(path: String, problem: FileProblem)
    /// The passphrase file or systemd credential could not be used as it is.
    case passphraseSource(source: String, problem: FileProblem)
}

// MARK: - FileProblem

/// What is wrong with a file that holds a secret.
public enum FileProblem: Equatable, Sendable {
    case missing
    /// The path names a symbolic link, which a secret's path must never be.
    case symbolicLink
    case notRegularFile
    case notOwnedByUser(owner: UInt32)
    /// Group or other permission bits are set (`mode` in octal, e.g. "644").
    case permissionsTooOpen(mode: String)
    /// The folder around it is not the user's own 0700 folder.
    case unsafeDirectory(reason: String)
    case tooLarge(limit: Int)
    /// A system call failed: its name and `strerror` text.
    case system(call: String, reason: String)
}

// MARK: - Descriptions

extension EncryptionError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .libraryUnavailable:
            return "libsodium could not be initialised"
        case .outOfSecureMemory:
            return "no secure memory left for a key or passphrase"
        case .emptyPassphrase:
            return "the passphrase is empty"
        case .passphraseTooLong(let maximum):
            return "the passphrase is longer than \(maximum) bytes"
        case .invalidKDFParameters(let reason):
            return "unusable key-derivation parameters: \(reason)"
        case .keyDerivationFailed:
            return "the passphrase's key could not be derived: not enough memory for its parameters"
        case .wrongPassphrase:
            return "wrong passphrase: it does not open the wrapped key"
        case .keyIDMismatch(let expected, let found):
            return "the key opened has id \(found), not the \(expected) it was stored under"
        case .unsupportedFormat(let version):
            return "format version \(version) is not one this Shelf knows; a newer Shelf wrote it"
        case .keyringNotAuthentic(let reason):
            return "the server's keyring is not one the reader's keys wrote (\(reason)): refusing it"
        case .keyringDamaged(let problems):
            return "the keyring on the server is damaged: \(problems)"
        case .keyringRolledBack(let seen, let found):
            return "the server's keyring is version \(found), older than version \(seen) this device has seen: the server put an old keyring back; refusing it"
        case .tampered(let record):
            return "\(record) could not be opened: its ciphertext was altered, or it was sealed for another record or collection"
        case .unknownKey(let id):
            return "sealed with key \(id), which this device does not hold"
        case .notSealed(let record):
            return "\(record) is plaintext where a sealed record was expected"
        case .malformed(let reason):
            return "malformed encrypted data: \(reason)"
        case .keyFile(let path, let problem):
            return "key file \(path): \(problem)"
        case .passphraseSource(let source, let problem):
            return "passphrase from \(source): \(problem)"
        }
    }
}

extension FileProblem: CustomStringConvertible {
    public var description: String {
        switch self {
        case .missing: return "no such file"
        case .symbolicLink: return "is a symbolic link; refusing to follow it"
        case .notRegularFile: return "not a regular file"
        case .notOwnedByUser(let owner): return "owned by uid \(owner), not by this user"
        case .permissionsTooOpen(let mode): return "mode \(mode) lets others read it; use chmod 600"
        case .unsafeDirectory(let reason): return "unsafe folder: \(reason)"
        case .tooLarge(let limit): return "larger than \(limit) bytes"
        case .system(let call, let reason): return "\(call) failed: \(reason)"
        }
    }
}

/// Thrown on its own by the file layer (`PrivateFile`), which does not know whether the
/// file is a key file or a passphrase; its callers wrap it with the path.
extension FileProblem: Error {}
