import ArgumentParsing

// MARK: - The root's help sections

/// What ends `shelf --help` and fills the man page's EXIT STATUS, ENVIRONMENT and
/// FILES: one list each, so the two never disagree.
extension Shelf {
    static let helpSections: [HelpSection] = [
        .exitCodes([
            .init("0", "success (also a sync that finds no shop catalog on the server; it warns)"),
            .init("1", "not found, or finished with conflicts, failed changes, or a collection the server refuses (the others synced); a book others refer to (book rm)"),
            .init("64", "usage error (a wrong command line; an id prefix shorter than 4 characters or one several records share — the candidates are listed)"),
            .init("65", "invalid data (e.g. an empty title, a daily goal out of range, a malformed import file, an empty note body)"),
            .init("66", "an input file cannot be read (import); a link to a record that is not there (open)"),
            .init("69", "no server set up for a command that needs one; no sign-up on the server"),
            .init("73", "an output file cannot be written (export --output)"),
            .init("74", "the local store cannot be read or written, or is damaged ('shelf doctor')"),
            .init("75", "temporary failure: network, server, the server asked to wait (backoff), or a read-only server holds local changes back"),
            .init("77", "the server refused the credentials"),
            .init("78", "configuration error (unknown account, unsafe password file, a server Shelf cannot use, a TLS certificate that does not verify)"),
        ]),
        .environment([
            .init("SHELF_SERVER, SHELF_USER, SHELF_PASSWORD or SHELF_PASSWORD_FILE, SHELF_ACCOUNT",
                  "an account from the environment instead of an account file"),
            .init("SHELF_CA_FILE", "a PEM file of CAs to trust for the server (a private CA)"),
            .init("SHELF_OFFLINE", "1 (or true, yes, on): never contact the server, as --offline"),
            .init("SHELF_MAX_RESPONSE_MB, SHELF_MAX_RECORD_KB", "raise or lower the size limits of a server's responses and records"),
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
