import ArgumentParsing
import Testing

// MARK: - A tree with a hidden command and shared options

private struct App: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "app", abstract: "An app.",
        subcommands: [Books.self, Book.self, Hidden.self], sharesOptionsWithSubcommands: true)
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Internal.", standalone: true, hidden: true) var generateMan = false
}

private struct Books: ParsableCommand {
    static let configuration = CommandConfiguration(name: "books", abstract: "List books.")
    @Option(value: "text", help: "Search.") var search: String?
}

private struct Book: ParsableCommand {
    static let configuration = CommandConfiguration(name: "book", abstract: "One book.", subcommands: [Add.self, Edit.self])
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(name: "add", abstract: "Add.")
    }
    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(name: "edit", abstract: "Edit.")
    }
}

private struct Hidden: ParsableCommand {
    static let configuration = CommandConfiguration(name: "__words", abstract: "Internal.", isHidden: true)
}

private let parser = CommandLineParser(root: App.self)

private func message(_ argv: [String]) -> String {
    do {
        _ = try parser.parse(argv)
        return "accepted"
    } catch {
        return error.description
    }
}

// MARK: - Suggestions

@Suite("Did you mean …?")
struct SuggestionTests {
    @Test func aMistypedCommandIsAnsweredWithTheClosestOne() {
        #expect(message(["boks"]) == "Unknown command 'boks'; did you mean 'books'?")
        #expect(message(["bok"]) == "Unknown command 'bok'; did you mean 'book'?")
        #expect(message(["Books"]) == "Unknown command 'Books'; did you mean 'books'?")
    }

    @Test func aMistypedSubcommandIsAnsweredAtItsLevel() {
        #expect(message(["book", "ad"]) == "Unknown command 'ad'; did you mean 'add'?")
        #expect(message(["book", "eidt"]) == "Unknown command 'eidt'; did you mean 'edit'?")
        #expect(message(["help", "book", "ad"]) == "Unknown command 'ad'; did you mean 'add'?")
        // The unknown word is the mistake, not the option that follows it.
        #expect(message(["book", "ad", "--title", "Dune"]) == "Unknown command 'ad'; did you mean 'add'?")
        #expect(message(["boks", "--search", "x"]) == "Unknown command 'boks'; did you mean 'books'?")
    }

    @Test func aMistypedOptionIsAnsweredWithItsOwnAndTheSharedOnes() {
        #expect(message(["books", "--serch", "x"]) == "Unknown option '--serch'; did you mean '--search'?")
        #expect(message(["books", "--serch=x"]) == "Unknown option '--serch'; did you mean '--search'?")
        #expect(message(["book", "add", "--jsno"]) == "Unknown option '--jsno'; did you mean '--json'?")
        #expect(message(["books", "--hepl"]) == "Unknown option '--hepl'; did you mean '--help'?")
    }

    @Test func nothingCloseKeepsTheListOrTheBareMessage() {
        #expect(message(["lend"]) == "Unknown command 'lend'; expected one of: books, book")
        #expect(message(["book", "remove"]) == "Unknown command 'remove'; expected one of: add, edit")
        #expect(message(["books", "--colour"]) == "Unknown option '--colour'")
    }

    /// Hidden commands and flags still run, but are never offered.
    @Test func hiddenNamesAreNeverSuggestedOrListed() throws {
        #expect(message(["__word"]) == "Unknown command '__word'; expected one of: books, book")
        #expect(message(["books", "--generate-mam"]) == "Unknown option '--generate-mam'")
        #expect(try parser.parse(["__words"]).path == ["app", "__words"])
        let help = HelpRenderer(parser: parser).help(for: ["app"])
        #expect(!help.contains("__words"))
        #expect(!help.contains("generate-man"))
    }

    @Test func theDistanceCountsASwapOfNeighboursAsOneEdit() {
        #expect(Suggestions.closest(to: "eidt", among: ["edit", "add"]) == ["edit"])
        #expect(Suggestions.closest(to: "sohw", among: ["show"]) == ["show"])
        // Two candidates equally close are both offered, in their order.
        #expect(Suggestions.closest(to: "bo", among: ["book", "box"]) == ["box"])
        #expect(Suggestions.closest(to: "tsk", among: ["task", "tasks"]) == ["task"])
        #expect(Suggestions.closest(to: "rn", among: ["rm", "add"]) == ["rm"])
        #expect(Suggestions.closest(to: "ab", among: ["cd"]).isEmpty)
        #expect(Suggestions.closest(to: "--sarch", among: ["--search", "--sort"]) == ["--search"])
        #expect(Suggestions.closest(to: "note", among: ["notes", "note"]) == ["note"])
        #expect(Suggestions.closest(to: "nots", among: ["notes", "note"]) == ["notes", "note"])
    }
}
