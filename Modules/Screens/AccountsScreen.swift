// MARK: - AccountsScreen

/// The configured accounts as `shelf account list` shows them, the current one marked.
/// Passwords are never part of an entry: there is nothing here to leak.
public struct AccountsScreen: RenderableScreen, Hashable {
    public struct Entry: Encodable, Hashable, Sendable {
        public let name: String
        public let user: String
        public let server: String
        public let isCurrent: Bool

        public init(name: String, user: String, server: String, isCurrent: Bool) {
            self.name = name
            self.user = user
            self.server = server
            self.isCurrent = isCurrent
        }
    }

    /// In name order.
    public let accounts: [Entry]
    /// Accounts whose files could not be read, with why (e.g. unsafe permissions).
    public let problems: [String]

    public init(accounts: [Entry], problems: [String] = []) {
        self.accounts = accounts.sorted { $0.name < $1.name }
        self.problems = problems
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        if accounts.isEmpty {
            text.line("No accounts yet: Shelf works on the local-only store. Add one with 'shelf account add NAME --server URL --user USER'.")
        } else {
            var table = TextTable([.init(""), .init("NAME"), .init("USER"), .init("SERVER")])
            for account in accounts {
                table.append([.init(account.isCurrent ? "*" : "", .positive), .init(account.name, account.isCurrent ? .header : nil),
                              .init(account.user), .init(account.server)])
            }
            text.table(table)
        }
        for problem in problems { text.line("Warning: \(problem)", .warning) }
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case accounts, problems }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accounts, forKey: .accounts)
        try container.encode(problems, forKey: .problems)
    }
}
