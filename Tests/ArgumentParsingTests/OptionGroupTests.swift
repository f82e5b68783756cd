import ArgumentParsing
import Testing

// MARK: - A group two commands share, with words of their own

private struct Paging: ParsableArguments {
    @Option(value: "n", help: "At most N items.", expecting: "a whole number", transform: { Int($0) })
    var limit: Int?
    @Flag(help: "Turn the order round.")
    var reverse = false

    init() {}

    init(noun: String) {
        _limit = Option(value: "n", help: "At most N \(noun).", expecting: "a whole number", transform: { Int($0) })
    }
}

private struct Lists: ParsableCommand {
    static let configuration = CommandConfiguration(name: "lists", abstract: "Lists.", subcommands: [Books.self, Notes.self])

    struct Books: ParsableCommand {
        static let configuration = CommandConfiguration(name: "books", abstract: "The books.")
        @Option(value: "text", help: "Only these.") var search: String?
        @OptionGroup var paging = Paging(noun: "books")
        @Flag(help: "Only unread.") var unread = false
    }

    struct Notes: ParsableCommand {
        static let configuration = CommandConfiguration(name: "notes", abstract: "The notes.")
        @OptionGroup var paging = Paging(noun: "notes")
    }
}

// MARK: - Tests

/// An `@OptionGroup` declares its parameters once for every command that holds it: they
/// parse into the group, keep their defaults, and show in help where the group is
/// declared, with the words each command gave it.
@Suite("Option groups")
struct OptionGroupTests {
    private let parser = CommandLineParser(root: Lists.self)

    @Test func aGroupsParametersParseIntoTheGroup() throws {
        let parsed = try parser.parse(["books", "--limit", "3", "--reverse", "--search", "le guin"])
        let books = try #require(parsed.command as? Lists.Books)
        #expect(books.paging.limit == 3)
        #expect(books.paging.reverse)
        #expect(books.search == "le guin")
        #expect(!books.unread)
    }

    @Test func aGroupNotGivenKeepsItsDefaults() throws {
        let notes = try #require(try parser.parse(["notes"]).command as? Lists.Notes)
        #expect(notes.paging.limit == nil)
        #expect(!notes.paging.reverse)
    }

    @Test func aGroupsValuesAreCheckedLikeAnyOption() {
        #expect(throws: ParseError.self) { try parser.parse(["notes", "--limit", "many"]) }
    }

    @Test func helpListsTheGroupWhereItIsDeclaredInEachCommandsWords() {
        let help = HelpRenderer(parser: parser)
        let books = help.help(for: ["lists", "books"])
        let order = ["--search", "--limit", "--reverse", "--unread"].compactMap { books.range(of: $0)?.lowerBound }
        #expect(order.count == 4 && order == order.sorted(), "\(books)")
        #expect(books.contains("At most N books."))
        #expect(help.help(for: ["lists", "notes"]).contains("At most N notes."))
    }
}
