import Vocabulary

// MARK: - HelpSection

/// A section at the end of a command's help (`EXIT CODES:`, `ENVIRONMENT:`), kept as
/// entries rather than preformatted text so the help and the man page lay it out each
/// in their own way from the same words.
public struct HelpSection: Sendable, Equatable {
    /// What a section is for: the man page files it under the standard heading.
    public enum Role: Sendable, Equatable {
        case exitStatus
        case environment
        case files
        /// Any other section, under its own title in both.
        case other
    }

    /// One `term  text` row: an exit code, a variable, a path.
    public struct Entry: Sendable, Equatable {
        public var term: String
        public var text: String

        public init(_ term: String, _ text: String) {
            self.term = term
            self.text = text
        }
    }

    /// The heading in help (`EXIT CODES`); the man page uses `manTitle`.
    public var title: String
    public var role: Role
    public var entries: [Entry]
    /// Lines printed as they are, after the entries (a crontab line must not be wrapped).
    public var lines: [String]

    public init(title: String, role: Role = .other, entries: [Entry] = [], lines: [String] = []) {
        self.title = title
        self.role = role
        self.entries = entries
        self.lines = lines
    }

    /// `EXIT CODES:` with a row per status.
    public static func exitCodes(_ entries: [Entry], lines: [String] = []) -> HelpSection {
        HelpSection(title: "EXIT CODES", role: .exitStatus, entries: entries, lines: lines)
    }

    /// `EXIT CODES:` with a row per status, each with its one meaning (`ExitCode.meaning`),
    /// so a program's help, its man page and the documents never disagree.
    public static func exitCodes(_ codes: [ExitCode], lines: [String] = []) -> HelpSection {
        exitCodes(codes.map { Entry("\($0.rawValue)", $0.meaning) }, lines: lines)
    }

    public static func environment(_ entries: [Entry], lines: [String] = []) -> HelpSection {
        HelpSection(title: "ENVIRONMENT", role: .environment, entries: entries, lines: lines)
    }

    public static func files(_ entries: [Entry], lines: [String] = []) -> HelpSection {
        HelpSection(title: "FILES", role: .files, entries: entries, lines: lines)
    }

    /// The man page's heading (man-pages(7)'s names for the standard sections).
    public var manTitle: String {
        switch role {
        case .exitStatus: "EXIT STATUS"
        case .environment: "ENVIRONMENT"
        case .files: "FILES"
        case .other: title
        }
    }
}
