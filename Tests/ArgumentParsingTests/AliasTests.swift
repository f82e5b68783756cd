import ArgumentParsing
import Testing

// MARK: - A tree with an older name and a group that runs itself

private struct Shop: ParsableCommand {
    static let configuration = CommandConfiguration(name: "shop", abstract: "A shop.", subcommands: [Task.self, Star.self])

    struct Task: ParsableCommand {
        static let configuration = CommandConfiguration(name: "task", abstract: "Tasks.", subcommands: [Finish.self])
    }

    struct Finish: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "finish", abstract: "Mark a task done.", examples: [Example("Tick it off", "shop task finish t-3")],
            aliases: ["done"])
        @Argument(help: "The task.") var id: String
    }

    /// Toggles with an argument, or `star add ID`.
    struct Star: ParsableCommand {
        static let configuration = CommandConfiguration(name: "star", abstract: "Star or unstar.", subcommands: [Add.self])
        @Argument(name: "item", help: "The item to toggle.") var item: String?

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(name: "add", abstract: "Star it.")
            @Argument(help: "The item.") var id: String
        }
    }
}

private let parser = CommandLineParser(root: Shop.self)

@Suite("Command aliases and groups that run themselves")
struct AliasTests {
    @Test func anOlderNameRunsTheCommandUnderItsOwnName() throws {
        let parsed = try parser.parse(["task", "done", "t-3"])
        #expect(parsed.path == ["shop", "task", "finish"], "the command's own name, whichever was typed")
        #expect((parsed.command as? Shop.Finish)?.id == "t-3")
        #expect(try parser.parse(["help", "task", "done"]).path == ["shop", "task", "done"])
    }

    @Test func helpAndTheManPageSayTheOlderNameAndSuggestionsAndCompletionsDoNot() throws {
        let help = HelpRenderer(parser: parser)
        #expect(help.help(for: ["shop", "task"]).contains("finish                  Mark a task done. (also: done)"))
        let page = ManPage(parser: parser, source: "shop 1", date: "2026-12-01").render()
        #expect(page.contains("Also accepted, as an older name: \\fBtask done\\fR."))
        #expect(page.contains("\\fBfinish\\fR (also \\fBdone\\fR)"))
        #expect(throws: ParseError.self) { try parser.parse(["task", "don", "t-3"]) }
        let script = CompletionScript(parser: parser).render(for: .bash)
        #expect(!script.contains("task|done"), "never offered")
    }

    @Test func aGroupWithAnArgumentRunsItselfOrASubcommand() throws {
        #expect((try parser.parse(["star", "i-1"]).command as? Shop.Star)?.item == "i-1")
        #expect((try parser.parse(["star", "add", "i-1"]).command as? Shop.Star.Add)?.id == "i-1")
        #expect(HelpRenderer(parser: parser).usage(for: ["shop", "star"]) == "shop star [<item>] | <subcommand>")
    }
}
