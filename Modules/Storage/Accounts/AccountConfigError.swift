// MARK: - AccountConfigError

/// Why an account's configuration can't be used. Each case says what to fix; none
/// ever includes a password.
public enum AccountConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidName(String, reason: String)
    case notFound(String, known: [String])
    case alreadyExists(String)
    /// A file holding a secret is readable or writable by group or others.
    case unsafePermissions(path: String, mode: String)
    case unreadable(path: String, reason: String)
    case invalidFile(path: String, reason: String)
    /// The server URL, redacted, was not an `http(s)://host[:port][/v1]` URL.
    case invalidServer(String)
    /// The server URL, redacted, carried `user[:password]@`.
    case credentialsInServerURL(String)
    /// `SHELF_SERVER` was set but other variables it needs were not.
    case incompleteEnvironment(missing: [String])
    case emptyPassword(source: String)
    /// The account's password cannot be read now (`PasswordSource.read`): only what
    /// talks to the server meets this; local work never reads the password.
    case passwordUnavailable(PasswordProblem)

    public var description: String {
        switch self {
        case .invalidName(let name, let reason):
            return "invalid account name '\(name)': \(reason)"
        case .notFound(let name, let known):
            let list = known.isEmpty ? "no accounts are configured ('shelf account add')" : "known: \(known.joined(separator: ", "))"
            return "no account named '\(name)'; \(list)"
        case .alreadyExists(let name):
            return "an account named '\(name)' already exists; remove it first ('shelf account rm \(name)')"
        case .unsafePermissions(let path, let mode):
            return "\(path) is accessible by group or others (mode \(mode)); run 'chmod 600 \(path)'"
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .invalidFile(let path, let reason):
            return "\(path) is not a valid Shelf account file: \(reason)"
        case .invalidServer(let server):
            return "invalid server URL '\(server)': expected http(s)://host[:port][/v1]"
        case .credentialsInServerURL(let server):
            return "the server URL '\(server)' carries a user name or password; give the URL without them, the user with --user (or SHELF_USER) and the password with --password-file (or SHELF_PASSWORD)"
        case .incompleteEnvironment(let missing):
            return "SHELF_SERVER is set but \(missing.joined(separator: " and ")) \(missing.count == 1 ? "is" : "are") not"
        case .emptyPassword(let source):
            return "the password from \(source) is empty"
        case .passwordUnavailable(let problem):
            return problem.description
        }
    }
}
