import ArgumentParsing
import Domain

// MARK: - The root's help sections

/// What ends `shelf --help` and fills the man page's EXIT STATUS, ENVIRONMENT and
/// FILES: one list each, so the two never disagree.
extension Shelf {
    /// The statuses `shelf` documents: every one but an internal error's (70).
    static let exitCodes: [ExitCode] = ExitCode.allCases.filter { $0 != .software }

    static let helpSections: [HelpSection] = [
        .exitCodes(exitCodes),
        .environment([
            .init("SHELF_SERVER, SHELF_USER, SHELF_PASSWORD or SHELF_PASSWORD_FILE, SHELF_ACCOUNT",
                  "an account from the environment instead of an account file"),
            .init("SHELF_CA_FILE", "a PEM file of CAs to trust for the server (a private CA)"),
            .init("SHELF_OFFLINE", "1 (or true, yes, on): never contact the server, as --offline"),
            .init("SHELF_MAX_RESPONSE_MB, SHELF_MAX_RECORD_KB", "raise or lower the size limits of a server's responses and records"),
            .init("SHELF_STALL_SECONDS", "how long a server may send nothing before a request is given up (1-600, default 10)"),
            .init("SHELF_READ_SECONDS", "how long a read waits for the server before it shows what is local (1-60, default 1)"),
            .init("VISUAL, EDITOR", "the editor of 'note add --edit' and 'note edit --edit', in that order (default vi)"),
            .init("XDG_CONFIG_HOME, XDG_DATA_HOME", "where accounts and stores live"),
            .init("NO_COLOR", "never colour the output (unless --color always)"),
            .init("TERM", "'dumb': no colour"),
            .init("PAGER", "the pager for output longer than the terminal (default: less -FRX)"),
            .init("COLUMNS", "the width to fit when the terminal cannot say"),
        ]),
        .files([
            .init("$XDG_CONFIG_HOME/shelf/accounts/NAME.json", "an account: server, user, password file (0600; ~/.config when XDG_CONFIG_HOME is not set)"),
            .init("$XDG_DATA_HOME/shelf/NAME.sqlite", "the account's local store (~/.local/share when XDG_DATA_HOME is not set); 'local' is the store used without an account"),
        ]),
    ]
}
