import ArgumentParsing
import Testing

/// A small tree in the shape of Shelf's own: global flags inherited, a group, leaves.
private let tool = CommandSpec(
    name: "tool", abstract: "A tool.",
    options: [
        .flag("json", help: "Print JSON."),
        .flag("quiet", short: "q", help: "Say less."),
        .option("account", value: "name", help: "The account."),
        .flag("version", help: "Show the version.", standalone: true),
    ],
    subcommands: [
        CommandSpec(
            name: "book", abstract: "Work on one book.",
            subcommands: [
                CommandSpec(
                    name: "add", abstract: "Add a book.",
                    options: [
                        .option("title", value: "title", help: "The title.", required: true),
                        .option("author", value: "author", help: "The author.", required: true),
                    ]),
                CommandSpec(name: "show", abstract: "Show a book.", arguments: [ArgumentSpec("id", help: "The book's id.")]),
            ]),
        CommandSpec(
            name: "cart", abstract: "The cart.",
            subcommands: [
                CommandSpec(name: "show", abstract: "Show the cart."),
                CommandSpec(name: "rm", abstract: "Remove.", arguments: [ArgumentSpec("id", help: "The id.")]),
            ],
            defaultSubcommand: "show"),
        CommandSpec(
            name: "settings", abstract: "Reading settings.",
            options: [.option("show-finished", value: "on|off", help: "Show finished books.", allowed: ["on", "off"])]),
    ],
    inheritedByChildren: true)

private let parser = CommandLineParser(root: tool)

@Suite("Command-line parsing")
struct CommandLineParserTests {
    @Test func parsesNestedCommandsOptionsAndArguments() throws {
        let invocation = try parser.parse(["--json", "book", "add", "--title", "Dune", "--author=Frank Herbert"])
        #expect(invocation.path == ["tool", "book", "add"])
        #expect(invocation.command == "book add")
        #expect(invocation.flag("json"))
        #expect(invocation.option("title") == "Dune")
        #expect(invocation.option("author") == "Frank Herbert")
    }

    @Test func globalOptionsAreAcceptedAfterTheCommand() throws {
        let invocation = try parser.parse(["book", "show", "b1", "-q", "--account", "work"])
        #expect(invocation.argument("id") == "b1")
        #expect(invocation.flag("quiet"))
        #expect(invocation.option("account") == "work")
    }

    @Test func doubleDashEndsOptions() throws {
        let invocation = try parser.parse(["book", "show", "--", "--odd-id"])
        #expect(invocation.argument("id") == "--odd-id")
    }

    @Test func helpIsRecognisedEverywhere() throws {
        #expect(try parser.parse(["book", "add", "--help"]) == Invocation(path: ["tool", "book", "add"], wantsHelp: true))
        #expect(try parser.parse(["-h"]).wantsHelp)
        #expect(try parser.parse(["help", "book", "show"]) == Invocation(path: ["tool", "book", "show"], wantsHelp: true))
    }

    @Test func aGroupWithADefaultRunsItWhenNoSubcommandIsNamed() throws {
        #expect(try parser.parse(["cart", "--json"]).path == ["tool", "cart", "show"])
        #expect(try parser.parse(["cart", "rm", "p1"]).argument("id") == "p1")
        #expect(throws: ParseError.unknownSubcommand("p1", available: ["show", "rm"])) { try parser.parse(["cart", "p1"]) }
    }

    @Test func standaloneFlagSkipsValidation() throws {
        #expect(try parser.parse(["--version"]).flag("version"))
    }

    @Test(arguments: [
        (["book", "add", "--title", "T", "--author", "A", "--colour"], ParseError.unknownOption("--colour")),
        (["book", "add", "--title"], .missingValue(option: "title")),
        (["book", "add", "--title", "--author", "A"], .missingValue(option: "title")),
        (["--json=yes", "book", "show", "b1"], .unexpectedValue(option: "json")),
        (["settings", "--show-finished", "maybe"], .invalidValue(option: "show-finished", value: "maybe", allowed: ["on", "off"])),
        (["book", "add", "--title", "T"], .missingOption("author")),
        (["book", "show"], .missingArgument("id")),
        (["book", "show", "b1", "b2"], .unexpectedArgument("b2")),
        (["shelve"], .unknownSubcommand("shelve", available: ["book", "cart", "settings"])),
        (["book", "remove"], .unknownSubcommand("remove", available: ["add", "show"])),
        ([], .missingSubcommand(available: ["book", "cart", "settings"])),
        (["book"], .missingSubcommand(available: ["add", "show"])),
        (["help", "nope"], .unknownSubcommand("nope", available: ["book", "cart", "settings"])),
        (["settings", "--title", "x"], .unknownOption("--title")),
    ])
    func everyKindOfParseErrorIsReported(_ argv: [String], _ expected: ParseError) {
        #expect(throws: expected) { try parser.parse(argv) }
    }

    @Test func typedOptionConversionReportsTheBadValue() throws {
        let invocation = Invocation(path: ["tool"], options: ["quantity": "two"])
        #expect(throws: ParseError.invalid("Invalid value 'two' for '--quantity': expected a whole number")) {
            try invocation.option("quantity", as: "a whole number") { Int($0) }
        }
    }
}

@Suite("Help text")
struct HelpRendererTests {
    let renderer = HelpRenderer(parser: parser, rootEpilogue: "EXIT CODES:\n  0  ok")

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

        """
        #expect(renderer.help(for: ["tool", "book", "show"]) == expected)
    }

    @Test func groupHelpListsSubcommands() {
        let help = renderer.help(for: ["tool", "book"])
        #expect(help.contains("USAGE: tool book <subcommand>"))
        #expect(help.contains("SUBCOMMANDS:\n  add                     Add a book.\n  show                    Show a book.\n"))
        #expect(help.contains("See 'tool help book <subcommand>' for detailed help."))
        #expect(HelpRenderer(parser: parser).help(for: ["tool"]).contains("See 'tool help <subcommand>' for detailed help."))
    }

    @Test func rootHelpEndsWithTheEpilogue() {
        let help = renderer.help(for: ["tool"])
        #expect(help.hasPrefix("OVERVIEW: A tool.\n"))
        #expect(help.contains("--version"))
        #expect(help.hasSuffix("EXIT CODES:\n  0  ok\n"))
    }

    @Test func usageErrorNamesTheCommandToAskForHelp() {
        let text = renderer.usageError(.missingOption("author"), path: ["tool", "book", "add"])
        #expect(text == """
        Error: Missing required option '--author'
        Usage: tool book add --title <title> --author <author>
          See 'tool book add --help'.

        """)
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

@Suite("Durations")
struct DurationParsingTests {
    @Test(arguments: [
        ("90", Duration.seconds(90)), ("90s", .seconds(90)), ("5m", .seconds(300)), ("1h", .seconds(3600)),
        ("1h30m", .seconds(5400)), ("250ms", .milliseconds(250)), ("2d", .seconds(172_800)),
    ])
    func acceptsWhatPeopleType(_ text: String, _ expected: Duration) {
        #expect(DurationParsing.parse(text) == expected)
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
