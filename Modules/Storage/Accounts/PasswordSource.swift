import Foundation

// MARK: - PasswordSource

/// Where an account's password comes from, read only when a request needs it.
///
/// Resolving an account never reads its password: local work (reading, writing,
/// exporting, backing up, `--offline`) needs the store, not the server's credentials,
/// so a password file that went missing, changed mode or sits on a drive that is not
/// mounted must not lock the reader out of their own library. Only what talks to the
/// server calls `read()`, and its error says which of those happened and how to mend it.
public enum PasswordSource: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Given as it is: `SHELF_PASSWORD`, or the password stored in the account file (0600).
    case given(String, origin: Origin)
    /// A file that holds it (mode 600): the account file's `password_file`,
    /// `SHELF_PASSWORD_FILE`, or the systemd credential `password`.
    case file(path: String, origin: Origin)
    /// Not to be used, and why (an account file that others may access).
    case unusable(PasswordProblem)

    /// Who named the password, which decides how a reader mends a problem with it.
    public enum Origin: Sendable, Equatable {
        /// The account file of this account.
        case accountFile(AccountName)
        /// `SHELF_PASSWORD` or `SHELF_PASSWORD_FILE`.
        case environment
        /// systemd's `LoadCredential=password:…` (`$CREDENTIALS_DIRECTORY/password`).
        case systemdCredential
    }

    public var origin: Origin {
        switch self {
        case .given(_, let origin), .file(_, let origin): origin
        case .unusable(let problem): problem.origin
        }
    }

    /// The password.
    /// - Throws: `AccountConfigError.passwordUnavailable`, saying whether the file is
    ///   missing, open to group or others, not a file, unreadable, or empty.
    public func read() throws(AccountConfigError) -> String {
        switch self {
        case .given(let password, let origin):
            guard !password.isEmpty else { throw .passwordUnavailable(PasswordProblem(origin: origin, path: nil, kind: .empty)) }
            return password
        case .file(let path, let origin):
            do {
                return try SecretFile.readSecret(path)
            } catch {
                throw .passwordUnavailable(PasswordProblem(origin: origin, path: path, kind: error))
            }
        case .unusable(let problem):
            throw .passwordUnavailable(problem)
        }
    }

    /// Where the password is, without it.
    public var description: String {
        switch self {
        case .given(_, .accountFile): "stored in the account file"
        case .given(_, _): "from SHELF_PASSWORD"
        case .file(let path, _): "from \(path)"
        case .unusable(let problem): "not usable: \(problem.brief)"
        }
    }

    public var debugDescription: String { "PasswordSource(\(description))" }
    /// `dump()` and the debugger show where the password is, never the password.
    public var customMirror: Mirror { Mirror(self, children: ["source": description]) }
}

// MARK: - PasswordProblem

/// Why an account's password cannot be read now: one sentence that says what happened
/// (a missing file is not an insecure one) and how to mend it.
public struct PasswordProblem: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the password or its file.
    public enum Kind: Error, Sendable, Equatable {
        /// No file at the path: moved, deleted, or on a drive that is not mounted.
        case missing
        /// Group or others may read or write it (mode shown in octal).
        case notPrivate(mode: String)
        /// A folder, a device…
        case notAFile
        /// It is there but cannot be read (permission, I/O error).
        case unreadable(String)
        /// The file, or the variable, holds nothing.
        case empty
    }

    /// Which file `path` is.
    public enum File: Sendable, Equatable {
        /// A file that holds only the password.
        case password
        /// The account file, which holds the password or its path, and the server.
        case account
    }

    public let origin: PasswordSource.Origin
    /// The file, for a password kept in one.
    public let path: String?
    public let kind: Kind
    public let file: File

    public init(origin: PasswordSource.Origin, path: String?, kind: Kind, file: File = .password) {
        self.origin = origin
        self.path = path
        self.kind = kind
        self.file = file
    }

    public var description: String {
        "\(what); \(mend)"
    }

    /// A few words for a status line (`shelf ui`): what is wrong and the command that
    /// mends it, without the path.
    public var brief: String {
        let role = file == .account ? "account file" : "password file"
        let what = switch kind {
        case .missing: "\(role) missing"
        case .notPrivate: "\(role) open to others"
        case .notAFile: "\(role) not a file"
        case .unreadable: "\(role) unreadable"
        case .empty: "empty password"
        }
        guard case .accountFile(let name) = origin else { return what }
        let chmod = if case .notPrivate = kind { "chmod 600 it, or " } else { "" }
        return "\(what) (\(chmod)shelf account password \(name))"
    }

    private var what: String {
        let file = path.map { "the \(self.file == .account ? "account" : "password") file \($0)" } ?? ""
        switch kind {
        case .missing: return "\(file) is missing (moved, deleted, or on a drive that is not mounted)"
        case .notPrivate(let mode) where self.file == .account:
            return "\(file) is accessible by group or others (mode \(mode)), so Shelf trusts neither its password nor its server"
        case .notPrivate(let mode): return "\(file) is accessible by group or others (mode \(mode)), so Shelf does not use it"
        case .notAFile: return "\(file) is not a regular file"
        case .unreadable(let reason): return "\(file) cannot be read (\(reason))"
        case .empty:
            if let path { return "the password file \(path) is empty" }
            return origin == .environment ? "SHELF_PASSWORD is empty" : "the password stored in the account file is empty"
        }
    }

    private var mend: String {
        let chmod: String? = if case .notPrivate = kind, let path { "run 'chmod 600 \(path)'" } else { nil }
        switch origin {
        case .accountFile(let name):
            let again = "run 'shelf account password \(name)' to give the password again"
            if file == .account, let chmod { return chmod }
            if let chmod { return "\(chmod), or \(again)" }
            return path != nil && kind == .missing ? "put it back, or \(again)" : again
        case .environment:
            if let chmod { return chmod }
            return path != nil ? "point SHELF_PASSWORD_FILE at a readable file (mode 600), or set SHELF_PASSWORD" : "set SHELF_PASSWORD"
        case .systemdCredential:
            return chmod ?? "check the unit's LoadCredential=password:… line"
        }
    }
}
