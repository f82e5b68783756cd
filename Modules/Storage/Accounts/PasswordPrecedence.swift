import Foundation

// MARK: - PasswordPrecedence

/// Where a password comes from: one order, the same for every `shelf` command and for the
/// `shelf-sync` worker (docs/accounts.md, "Where the password comes from"). The first
/// that is there wins:
///
/// 1. `--password-file PATH` — the commands that save a password (`account add`,
///    `account password`);
/// 2. `SHELF_PASSWORD_FILE`;
/// 3. `SHELF_PASSWORD`;
/// 4. the systemd credential `password` (`$CREDENTIALS_DIRECTORY/password`) — for an
///    account from the environment only: its path lasts as long as the service, so it is
///    never saved into an account file;
/// 5. a prompt without echo on a terminal — the commands that save a password, only.
///
/// An account from an account file reads the password the file names (`password_file`,
/// or the password stored in it); the environment does not override it.
///
/// Nothing is read here: a file is named, and read only when the server is asked
/// (`PasswordSource.read()`).
public enum PasswordPrecedence {
    /// The variables, by name.
    public static let fileVariable = "SHELF_PASSWORD_FILE"
    public static let passwordVariable = "SHELF_PASSWORD"
    public static let credentialsDirectoryVariable = "CREDENTIALS_DIRECTORY"
    /// The name of the systemd credential that holds an environment account's password
    /// (`LoadCredential=password:/etc/shelf/password`).
    public static let credentialName = "password"

    /// What a password is being looked for.
    public enum Purpose: Sendable {
        /// A run, or a read that asks the server, of an account from the environment:
        /// the systemd credential counts.
        case run
        /// A password to save in an account file (`account add`, `account password`):
        /// `--password-file` counts, and a prompt follows when nothing is found.
        case save(optionFile: String?)
    }

    /// Where the winning password is.
    public enum Found: Sendable, Equatable {
        /// A file to read: `--password-file`, `SHELF_PASSWORD_FILE` or the credential.
        case file(path: String, from: Step)
        /// `SHELF_PASSWORD`, as it is (perhaps empty, which its reader refuses).
        case given(String)
    }

    /// The steps of the order, for messages and tests.
    public enum Step: String, Sendable, Equatable {
        case passwordFileOption = "--password-file"
        case passwordFileVariable = "SHELF_PASSWORD_FILE"
        case passwordVariable = "SHELF_PASSWORD"
        case systemdCredential = "$CREDENTIALS_DIRECTORY/password"
    }

    /// The first source that is there, in the order above; nil when none is (a run then
    /// lacks a password; a command that saves one asks on a terminal).
    public static func resolve(_ purpose: Purpose, environment: [String: String]) -> Found? {
        if case .save(let optionFile?) = purpose { return .file(path: optionFile, from: .passwordFileOption) }
        if let file = environment[fileVariable] { return .file(path: file, from: .passwordFileVariable) }
        if let password = environment[passwordVariable] { return .given(password) }
        if case .run = purpose, let file = credentialFile(environment) { return .file(path: file, from: .systemdCredential) }
        return nil
    }

    /// `$CREDENTIALS_DIRECTORY/password` when systemd passed that credential: the
    /// password then reaches the service without a path in its unit or environment.
    static func credentialFile(_ environment: [String: String]) -> String? {
        guard let folder = environment[credentialsDirectoryVariable], folder.hasPrefix("/") else { return nil }
        let path = folder + "/" + credentialName
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
