// MARK: - PassphraseSource

/// Where a passphrase comes from when no one is at a terminal: a file named by
/// `SHELF_PASSPHRASE_FILE`, or a systemd credential (`LoadCredential=` puts it in
/// `$CREDENTIALS_DIRECTORY/<name>`).
///
/// The file is read straight into secure memory, at most `Passphrase.maximumBytes` plus
/// a newline; one trailing newline (`\n` or `\r\n`) is dropped, as editors and
/// `echo` add one. Errors name the source, never its contents.
public enum PassphraseSource: Hashable, Sendable {
    /// A file that neither group nor others may read.
    case file(path: String)
    /// A systemd credential; systemd keeps it private to the service.
    case systemdCredential(directory: String, name: String)

    public static let fileVariable = "SHELF_PASSPHRASE_FILE"
    public static let credentialsDirectoryVariable = "CREDENTIALS_DIRECTORY"
    /// The credential name a unit gives: `LoadCredential=shelf-passphrase:/path`.
    public static let defaultCredentialName = "shelf-passphrase"

    /// The source the environment names: `SHELF_PASSPHRASE_FILE` first, then a systemd
    /// credential; nil when neither is set (a terminal prompt is the caller's choice).
    public static func fromEnvironment(
        _ environment: [String: String],
        credentialName: String = defaultCredentialName
    ) -> PassphraseSource? {
        if let path = environment[fileVariable], !path.isEmpty {
            return .file(path: path)
        }
        if let directory = environment[credentialsDirectoryVariable], !directory.isEmpty {
            return .systemdCredential(directory: directory, name: credentialName)
        }
        return nil
    }

    /// The path the passphrase is read from.
    public var path: String {
        switch self {
        case .file(let path): return path
        case .systemdCredential(let directory, let name): return directory + "/" + name
        }
    }

    /// - Throws: `.passphraseSource` for a missing, linked (credential), non-regular,
    ///   too open (file) or too large source, `.emptyPassphrase` for an empty one.
    public func read() throws(EncryptionError) -> Passphrase {
        if case .systemdCredential(_, let name) = self, name.isEmpty || name.contains("/") || name == ".." {
            throw .passphraseSource(source: description, problem: .unsafeDirectory(reason: "a credential's name must name a file inside it"))
        }
        let contents: SecretBytes?
        do {
            let policy: PrivateFile.ReadPolicy = if case .file = self { .passphraseFile } else { .credential }
            contents = try PrivateFile.contents(path, policy: policy, maximumBytes: Passphrase.maximumBytes + 2)
        } catch {
            throw .passphraseSource(source: description, problem: error)
        }
        guard let contents else { throw .passphraseSource(source: description, problem: .missing) }
        let length = contents.withUnsafeBytes { bytes in
            var length = bytes.count
            if length > 0, bytes[length - 1] == UInt8(ascii: "\n") {
                length -= 1
                if length > 0, bytes[length - 1] == UInt8(ascii: "\r") { length -= 1 }
            }
            return length
        }
        guard length > 0 else { throw .emptyPassphrase }
        return try Passphrase(bytes: contents.prefix(length))
    }
}

extension PassphraseSource: CustomStringConvertible {
    public var description: String {
        switch self {
        case .file(let path): return "\(Self.fileVariable) (\(path))"
        case .systemdCredential(_, let name): return "systemd credential \(name) (\(path))"
        }
    }
}
