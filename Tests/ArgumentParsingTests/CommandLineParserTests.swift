import ArgumentParsing
import Foundation
import Testing
import TestSupport

// MARK: - A small tree in the shape of Shelf's own

/// Global flags shared with every subcommand, groups, leaves, a default subcommand.
private struct Tool: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "tool", abstract: "A tool.",
        examples: [Example("Add a book, printing JSON", "tool --json book add --title Dune --author 'Frank Herbert'")],
        subcommands: [Book.self, Cart.self, Settings.self], sharesOptionsWithSubcommands: true,
        sections: [.exitCodes([.init("0", "ok")])])

    @Flag(help: "Print JSON.") var json = false
    @Flag(short: "q", help: "Say less.") var quiet = false
    @Option(value: "name", help: "The account.") var account: String?
    @Flag(help: "Show the version.", standalone: true) var version = false
}

private struct Book: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "book", abstract: "Work on one book.", subcommands: [Add.self, Show.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "add", abstract: "Add a book.",
            examples: [Example("Add a book", "tool book add --title Dune --author \"Frank Herbert\"")])
        @Option(value: "title", help: "The title.") var title: String
        @Option(value: "author", help: "The author.") var author: String
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "show", abstract: "Show a book.", examples: [Example("Show one book", "tool book show b-42")])
        @Argument(help: "The book's id.") var id: String
    }
}

private struct Cart: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "cart", abstract: "The cart.", subcommands: [Show.self, Put.self, Remove.self], defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(name: "show", abstract: "Show the cart.")
    }

    struct Put: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "put", abstract: "Put a product in.",
            examples: [Example("Two of one product", "tool cart put p-1 --quantity 2")])
        @Argument(help: "The product.") var productID: String
        @Option(value: "n", help: "How many.") var quantity = 1
        @Argument(help: "A note.") var note: String?
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(name: "rm", abstract: "Remove.")
        @Argument(help: "The id.") var id: String
        @Argument(help: "How many to remove.") var count: Int?
    }
}

private enum Mode: String, CaseIterable, ExpressibleByArgument {
    case on, off, auto
}

private struct Settings: ParsableCommand {
    static let configuration = CommandConfiguration(name: "settings", abstract: "Reading settings.")
    @Option(value: "on|off|auto", help: "Show finished books.") var showFinished: Mode?
    @Option(value: "minutes", help: "Daily goal.") var dailyGoal: Int?
    @Option(value: "name", help: "Only this; repeat for several.", allowed: [.off, .on]) var collection: [Mode]
    @Option(value: "n", help: "Pages.", expecting: "a whole number from 1 to 9", transform: { Int($0).flatMap { (1...9).contains($0) ? $0 : nil } })
    var pages: Int?
    @Flag(help: "Reset first.") var reset = false

    func validate() throws(ParseError) {
        if reset && (showFinished != nil || dailyGoal != nil) { throw .invalid("Use either '--reset' or values, not both") }
    }
}

private let parser = CommandLineParser(root: Tool.self)

/// The command the line names, as its type.
private func parse<C: ParsableCommand>(_ argv: [String], as type: C.Type) throws -> C {
    let parsed = try parser.parse(argv)
    return try #require(parsed.command as? C, "\(argv) made \(String(describing: parsed.command))")
}

// MARK: - Parsing

@Suite("Command-line parsing")
struct CommandLineParserTests {
    @Test func parsesNestedCommandsOptionsAndArgumentsIntoTypedProperties() throws {
        let parsed = try parser.parse(["--json", "book", "add", "--title", "Dune", "--author=Frank Herbert"])
        #expect(parsed.path == ["tool", "book", "add"])
        #expect(parsed.command(Tool.self)?.json == true)
        let add = try #require(parsed.command as? Book.Add)
        #expect(add.title == "Dune")
        #expect(add.author == "Frank Herbert")
    }

    @Test func aSubcommandReadOnItsOwnIsTheOneTheTreeHolds() throws {
        let root = CommandSpec(Tool.self)
        #expect(root.hasSubcommands)
        #expect(root.subcommands.map(\.name) == ["book", "cart", "settings"])
        let book = try #require(root.subcommand(named: "book"))
        #expect(book.hasSubcommands)
        let add = try #require(book.subcommand(named: "add"))
        #expect(add.type is Book.Add.Type)
        #expect(!add.hasSubcommands && add.subcommands.isEmpty)
        #expect(add.options.map(\.long) == ["title", "author"])
        #expect(add.options.map(\.long) == book.subcommands.first { $0.name == "add" }?.options.map(\.long))
        #expect(root.subcommand(named: "add") == nil)
        #expect(root.subcommand(named: "settings")?.options.map(\.long) == ["show-finished", "daily-goal", "collection", "pages", "reset"])
    }

    @Test func globalOptionsAreAcceptedAfterTheCommandAndKeptByTheCommandThatDeclaresThem() throws {
        let parsed = try parser.parse(["book", "show", "b1", "-q", "--account", "work"])
        #expect((parsed.command as? Book.Show)?.id == "b1")
        let root = try #require(parsed.command(Tool.self))
        #expect(root.quiet)
        #expect(root.account == "work")
        #expect(!root.json)
    }

    @Test func doubleDashEndsOptions() throws {
        #expect(try parse(["book", "show", "--", "--odd-id"], as: Book.Show.self).id == "--odd-id")
    }

    @Test func helpIsRecognisedEverywhere() throws {
        let help = try parser.parse(["book", "add", "--help"])
        #expect(help.wantsHelp && help.path == ["tool", "book", "add"] && help.commands.isEmpty)
        #expect(try parser.parse(["-h"]).wantsHelp)
        let named = try parser.parse(["help", "book", "show"])
        #expect(named.wantsHelp && named.path == ["tool", "book", "show"])
    }

    @Test func aGroupWithADefaultRunsItWhenNoSubcommandIsNamed() throws {
        #expect(try parser.parse(["cart", "--json"]).path == ["tool", "cart", "show"])
        #expect(try parse(["cart", "rm", "p1"], as: Cart.Remove.self).id == "p1")
        #expect(try parse(["cart", "rm", "p1", "2"], as: Cart.Remove.self).count == 2)
        #expect(throws: ParseError.unknownSubcommand("p1", available: ["show", "put", "rm"])) { try parser.parse(["cart", "p1"]) }
    }

    @Test func standaloneFlagSkipsValidation() throws {
        let parsed = try parser.parse(["--version", "book"])
        #expect(parsed.command(Tool.self)?.version == true)
        #expect(parsed.path == ["tool"])
    }

    @Test func defaultsOptionalsAndNamesComeFromTheDeclaration() throws {
        let put = try parse(["cart", "put", "p-1"], as: Cart.Put.self)
        #expect(put.productID == "p-1" && put.quantity == 1 && put.note == nil)
        let given = try parse(["cart", "put", "p-1", "gift", "--quantity", "3"], as: Cart.Put.self)
        #expect(given.quantity == 3 && given.note == "gift")
        let settings = try parse(["settings", "--show-finished", "off", "--daily-goal=20"], as: Settings.self)
        #expect(settings.showFinished == .off && settings.dailyGoal == 20 && settings.collection.isEmpty && !settings.reset)
    }

    @Test func aRepeatableOptionKeepsEveryValueInOrderAndOthersTheLast() throws {
        let settings = try parse(
            ["settings", "--collection", "off", "--collection", "on", "--daily-goal", "5", "--daily-goal", "10"], as: Settings.self)
        #expect(settings.collection == [.off, .on])
        #expect(settings.dailyGoal == 10)
    }

    @Test(arguments: [
        (["book", "add", "--title", "T", "--author", "A", "--colour"],
         ParseError.unknownOption("--colour", available: ["--title", "--author", "--json", "--quiet", "--account", "--version", "--help"])),
        (["book", "add", "--title"], .missingValue(option: "title")),
        (["book", "add", "--title", "--author", "A"], .missingValue(option: "title")),
        (["--json=yes", "book", "show", "b1"], .unexpectedValue(option: "json")),
        (["settings", "--show-finished", "maybe"], .invalidValue(option: "show-finished", value: "maybe", allowed: ["on", "off", "auto"])),
        (["settings", "--collection", "on", "--collection", "auto"], .invalidValue(option: "collection", value: "auto", allowed: ["off", "on"])),
        (["book", "add", "--title", "T"], .missingOption("author")),
        (["book", "show"], .missingArgument("id")),
        (["book", "show", "b1", "b2"], .unexpectedArgument("b2")),
        (["shelve"], .unknownSubcommand("shelve", available: ["book", "cart", "settings"])),
        (["book", "remove"], .unknownSubcommand("remove", available: ["add", "show"])),
        ([], .missingSubcommand(available: ["book", "cart", "settings"])),
        (["book"], .missingSubcommand(available: ["add", "show"])),
        (["help", "nope"], .unknownSubcommand("nope", available: ["book", "cart", "settings"])),
        (["settings", "--title=x"], .unknownOption(
            "--title", available: ["--show-finished", "--daily-goal", "--collection", "--pages", "--reset", "--json", "--quiet", "--account", "--version", "--help"])),
        (["settings", "--daily-goal", "soon"], .invalid("Invalid value 'soon' for '--daily-goal': expected a whole number")),
        (["cart", "put", "p-1", "--quantity", "two"], .invalid("Invalid value 'two' for '--quantity': expected a whole number")),
        (["settings", "--pages", "10"], .invalid("Invalid value '10' for '--pages': expected a whole number from 1 to 9")),
        (["cart", "rm", "p-1", "two"], .invalid("Invalid value 'two' for <count>: expected a whole number")),
        (["settings", "--reset", "--daily-goal", "5"], .invalid("Use either '--reset' or values, not both")),
    ])
    func everyKindOfParseErrorIsReported(_ argv: [String], _ expected: ParseError) {
        #expect(throws: expected) { try parser.parse(argv) }
    }

    @Test func aCommandIsMadeByTheParserOnly() {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Book.Show.self, from: Data(#"{"id": "b1"}"#.utf8)) }
    }
}

// MARK: - The tree

@Suite("Command declarations")
struct CommandDeclarationTests {
    @Test func theTreeIsReadFromTheDeclarationsInTheOrderTheyAreWritten() throws {
        let root = parser.root
        #expect(root.options.map(\.long) == ["json", "quiet", "account", "version"])
        #expect(root.subcommands.map(\.name) == ["book", "cart", "settings"])
        let put = try #require(root.subcommand(named: "cart")?.subcommand(named: "put"))
        #expect(put.arguments.map(\.name) == ["product-id", "note"])
        #expect(put.arguments.map(\.isOptional) == [false, true])
        let settings = try #require(root.subcommand(named: "settings"))
        #expect(settings.options.map(\.long) == ["show-finished", "daily-goal", "collection", "pages", "reset"])
        #expect(settings.options.first?.allowedValues == ["on", "off", "auto"])
        #expect(settings.options.dropFirst(2).first?.allowedValues == ["off", "on"])
        #expect(settings.options.map(\.isRepeatable) == [false, false, true, false, false])
        #expect(root.subcommand(named: "book")?.subcommand(named: "add")?.options.map(\.isRequired) == [true, true])
    }

    /// Every example of every command parses: help never shows a line that is refused.
    @Test func everyExampleParses() throws {
        var examples = 0
        func walk(_ spec: CommandSpec) throws {
            for example in spec.examples {
                let words = ShellWords.split(example.commandLine)
                #expect(words.first == "tool", "\(example.commandLine)")
                _ = try parser.parse(Array(words.dropFirst()))
                examples += 1
            }
            for child in spec.subcommands { try walk(child) }
        }
        try walk(parser.root)
        #expect(examples == 4)
    }
}

// MARK: - Help

@Suite("Help text")
struct HelpRendererTests {
    let renderer = HelpRenderer(parser: parser)

    @Test func leafHelpHasEverySection() {
        let expected = """
        OVERVIEW: Show a book.

        USAGE: tool book show <id>

        ARGUMENTS:
          <id>                    The book's id.

        OPTIONS:
          --json                  Print JSON.
          -q, --quiet             Say less.
          --account <name>        The account.
          -h, --help              Show help information.

        EXAMPLES:
          Show one book:
            tool book show b-42

        """
        #expect(renderer.help(for: ["tool", "book", "show"]) == expected)
    }

    @Test func groupHelpListsSubcommands() {
        let help = renderer.help(for: ["tool", "book"])
        #expect(help.contains("USAGE: tool book <subcommand>"))
        #expect(help.contains("SUBCOMMANDS:\n  add                     Add a book.\n  show                    Show a book.\n"))
        #expect(help.contains("See 'tool help book <subcommand>' for detailed help."))
        #expect(!help.contains("EXAMPLES"))
        #expect(renderer.help(for: ["tool"]).contains("See 'tool help <subcommand>' for detailed help."))
        #expect(renderer.help(for: ["tool", "cart"]).contains("USAGE: tool cart [<subcommand>]"))
    }

    @Test func rootHelpEndsWithItsExamplesAndTheEpilogue() {
        let help = renderer.help(for: ["tool"])
        #expect(help.hasPrefix("OVERVIEW: A tool.\n"))
        #expect(help.contains("--version"))
        #expect(help.hasSuffix("""
            EXAMPLES:
              Add a book, printing JSON:
                tool --json book add --title Dune --author 'Frank Herbert'

            EXIT CODES:
              0  ok

            """))
        #expect(!renderer.help(for: ["tool", "book", "add"]).contains("EXIT CODES"))
    }

    @Test func usageErrorNamesTheCommandToAskForHelp() {
        let text = renderer.usageError(.missingOption("author"), path: ["tool", "book", "add"])
        #expect(text == """
        Error: Missing required option '--author'
        Usage: tool book add --title <title> --author <author>
          See 'tool book add --help'.

        """)
        #expect(renderer.usage(for: ["tool", "cart", "put"]) == "tool cart put [<options>] <product-id> [<note>]")
    }

    @Test func theCommandPathOfAWrongLineStopsWhereMatchingStops() {
        #expect(parser.commandPath(for: ["book", "add", "--title"]) == ["tool", "book", "add"])
        #expect(parser.commandPath(for: ["--account", "book", "book", "show", "x", "y"]) == ["tool", "book", "show"])
        #expect(parser.commandPath(for: ["book", "lend", "b-1"]) == ["tool", "book"])
        #expect(parser.commandPath(for: ["--nope", "cart", "rm"]) == ["tool", "cart", "rm"])
        #expect(parser.commandPath(for: ["help", "settings", "extra"]) == ["tool", "settings"])
        #expect(parser.commandPath(for: ["--", "book"]) == ["tool"])
    }
}

// MARK: - Names and values

@Suite("Parameter names and durations")
struct DurationParsingTests {
    @Test(arguments: [
        ("90", Duration.seconds(90)), ("90s", .seconds(90)), ("5m", .seconds(300)), ("1h", .seconds(3600)),
        ("1h30m", .seconds(5400)), ("250ms", .milliseconds(250)), ("2d", .seconds(172_800)),
    ])
    func acceptsWhatPeopleType(_ text: String, _ expected: Duration) {
        #expect(DurationParsing.parse(text) == expected)
        #expect(Duration(argument: text) == expected)
    }

    @Test(arguments: ["", "0", "-5", "5x", "m", "1.5h", "5 minutes", "h5"])
    func refusesTheRest(_ text: String) {
        #expect(DurationParsing.parse(text) == nil)
    }
}

/// Durations typed on a command line: no number, however long, can trap.
@Suite("Duration parsing is bounded")
struct BoundedDurationParsingTests {
    @Test(arguments: [
        ("90s", Duration.seconds(90)), ("250ms", .milliseconds(250)), ("1h30m", .seconds(5_400)), ("60", .seconds(60)),
    ])
    func durationsParse(_ text: String, _ expected: Duration) {
        #expect(DurationParsing.parse(text) == expected)
    }

    @Test(arguments: ["9223372036854775807d", "99999999999999999999s", "1000000001", "0s", "-5s", "5x", String(repeating: "1", count: 100) + "s"])
    func hugeOrInvalidDurationsAreRefused(_ text: String) {
        #expect(DurationParsing.parse(text) == nil)
    }
}
