import ArgumentParsing
import Foundation
@testable import ShelfCommands
import Testing
import TestSupport

/// One grammar for every record: the commands, read from their declarations (the tree
/// `CommandLineParser` walks, not a list kept by hand), are held to the table in
/// docs/cli.md, and the table to them.
@Suite("shelf: one grammar")
struct GrammarTests {
    static let root = CommandLineParser(root: Shelf.self).root
    /// The verbs a record takes, in the table's order.
    static let verbs = ["show", "add", "edit", "rm", "finish", "unfinish"]

    /// The commands that act on the reader's records: the groups of which a subcommand
    /// takes a record (an argument completed with records' ids).
    static var recordGroups: [CommandSpec] {
        root.visibleSubcommands.filter { group in
            group.subcommands.contains { sub in
                sub.arguments.contains { argument in
                    if case .dynamic(let words)? = argument.completion { words.first == "ids" } else { false }
                }
            }
        }
    }

    /// The table's rows, by the command group they are about (its first `add` cell names it).
    static func table() throws -> [(group: String, cells: [String: String], older: String)] {
        let text = try String(contentsOf: FixtureFiles.repositoryRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- grammar:begin -->"), "no grammar table in docs/cli.md")
        let end = try #require(text.range(of: "<!-- grammar:end -->"))
        let lines = text[begin.upperBound..<end.lowerBound].split(separator: "\n").map(String.init).filter { $0.hasPrefix("|") }
        let header = cells(lines[0])
        #expect(Array(header[2..<8]) == verbs, "the verb columns")
        return try lines.dropFirst(2).map { line in
            let row = cells(line)
            let add = row[3]
            let group = try #require(add.split(separator: " ").first.map { String($0.dropFirst()) }, "\(line)")
            var byVerb: [String: String] = [:]
            for (index, verb) in verbs.enumerated() { byVerb[verb] = row[2 + index] }
            return (group, byVerb, row[8])
        }
    }

    private static func cells(_ line: String) -> [String] {
        line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func everyRecordCommandUsesTheGrammarsVerbsAndTheTableSaysWhichItHas() throws {
        let table = try Self.table()
        let groups = Self.recordGroups
        #expect(Set(groups.map(\.name)) == Set(table.map(\.group)), "every record command is in the table, and only those")
        #expect(groups.count == 5)
        for group in groups {
            let row = try #require(table.first { $0.group == group.name })
            let declared = Set(group.subcommands.map(\.name))
            #expect(declared.isSubset(of: Set(Self.verbs)), "shelf \(group.name) has verbs outside the grammar: \(declared)")
            #expect(declared.contains("add") && declared.contains("rm"), "shelf \(group.name) adds and removes")
            for verb in Self.verbs {
                let cell = try #require(row.cells[verb])
                if declared.contains(verb) {
                    #expect(cell.hasPrefix("`\(group.name) \(verb)"), "the table's \(verb) of \(group.name): \(cell)")
                } else {
                    #expect(cell == "—", "the table gives shelf \(group.name) a \(verb) it does not have: \(cell)")
                }
            }
            // The older forms: each alias the declarations accept, and nothing else.
            let aliases = group.subcommands.flatMap { sub in sub.aliases.map { "\(group.name) \($0)" } }
            for alias in aliases {
                #expect(row.older.contains("`\(alias)"), "\(alias) is accepted but not in the table's older forms")
            }
            let listed = row.older.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            for form in listed {
                let words = form.split(separator: " ").map(String.init)
                let isAlias = aliases.contains { form.hasPrefix($0 + " ") || form == $0 }
                let isOwnRun = words.count == 2 && group.arguments.count == 1  // `favorite BOOK`
                let isOlderArgument = words.count == 3 && words[1] == "add"
                    && group.subcommand(named: "add")?.arguments.isEmpty == false  // `task add TITLE`
                #expect(isAlias || isOwnRun || isOlderArgument, "\(form) is in the table but not accepted")
            }
        }
    }

    /// A verb means one thing: no record's verb, older forms aside, is a top-level command
    /// (`task undo` beside `shelf undo` was the clash).
    @Test func noRecordVerbIsATopLevelCommand() {
        let topLevel = Set(Self.root.visibleSubcommands.map(\.name))
        for group in Self.recordGroups {
            for sub in group.subcommands {
                #expect(!topLevel.contains(sub.name), "shelf \(group.name) \(sub.name) is also shelf \(sub.name)")
            }
        }
    }

    /// A record with a title is given it with `--title`; a record is named by its id, a
    /// unique prefix, or its title (or name): every argument that takes one says so.
    @Test func titlesAreGivenWithTitleAndRecordsNamedByIDPrefixOrTitle() {
        for group in Self.recordGroups {
            for sub in group.subcommands {
                if sub.name == "add", ["book", "note", "task"].contains(group.name) {
                    #expect(sub.options.contains { $0.long == "title" }, "shelf \(group.name) add has no --title")
                }
                if sub.name == "edit", ["book", "note", "task"].contains(group.name) {
                    #expect(sub.options.contains { $0.long == "title" }, "shelf \(group.name) edit has no --title")
                }
                for argument in sub.arguments where argument.completion.map({ if case .dynamic(let words) = $0 { words.first == "ids" } else { false } }) == true {
                    #expect(argument.help.contains("a unique prefix of it") && argument.help.contains(", or its "),
                            "shelf \(group.name) \(sub.name) <\(argument.name)>: \(argument.help)")
                }
            }
        }
    }

    /// A list that searches takes the text as its first argument too.
    @Test func aListThatSearchesTakesTheTextAsItsArgument() {
        let searching = Self.root.visibleSubcommands.filter { $0.options.contains { $0.long == "search" } }
        #expect(Set(searching.map(\.name)) == ["books", "notes", "products"])
        for list in searching {
            #expect(list.arguments.map(\.name) == ["query"], "shelf \(list.name)")
        }
    }

    // MARK: The grammar at work

    @Test func theOlderFormsStillWork() async throws {
        let sandbox = try ShelfSandbox()
        let added = try await sandbox.run("--json", "task", "add", "Read chapter 1")
        #expect(added.status == 0, "\(added)")
        let id = try #require(try added.json()["id"] as? String)
        #expect(try await sandbox.run("--json", "task", "done", id).json()["isDone"] as? Bool == true)
        #expect(try await sandbox.run("--json", "task", "undo", id).json()["isDone"] as? Bool == false)
        #expect(try await sandbox.run("task", "add", "--title", "T", "Also T").status == 64, "a title given twice")
        let help = try await sandbox.run("help", "task", "done")
        #expect(help.stdout.hasPrefix("OVERVIEW: Mark a task done."), "\(help)")
    }

    @Test func recordsAreNamedByTitleAndCartLinesByProductName() async throws {
        let sandbox = try ShelfSandbox()
        #expect(try await sandbox.run("book", "add", "--title", "Beowulf").status == 0, "an author may be left out")
        #expect(try await sandbox.run("--json", "books", "beow").json()["books"].flatMap { $0 as? [Any] }?.count == 1)
        #expect(try await sandbox.run("task", "add", "--title", "Read the Heaney translation").status == 0)
        #expect(try await sandbox.run("--json", "task", "finish", "heaney").json()["isDone"] as? Bool == true)
        #expect(try await sandbox.run("note", "add", "--title", "Grendel", "--body", "Mere.").status == 0)
        #expect(try await sandbox.run("note", "edit", "grendel", "--body", "The mere.").status == 0)
        #expect(try await sandbox.run("favorite", "add", "Beowulf").status == 0)
        let again = try await sandbox.run("favorite", "add", "Beowulf")
        #expect(again.status == 0 && again.stdout.hasSuffix("is a favorite already; nothing changed\n"), "twice is the same: \(again)")
        #expect(try await sandbox.run("--json", "favorites").json()["favorites"].flatMap { $0 as? [Any] }?.count == 1)
        #expect(try await sandbox.run("favorite", "rm", "Beowulf").status == 0)
        #expect(try await sandbox.run("favorite", "rm", "Beowulf").status == 0, "twice is the same")
        #expect(try await sandbox.run("--json", "favorites").json()["favorites"].flatMap { $0 as? [Any] }?.isEmpty == true)
        let unknown = try await sandbox.run("cart", "add", "Brass bookmark")
        #expect(unknown.status == 1 && unknown.stderr.contains("no product with id or name 'Brass bookmark'"), "\(unknown)")
    }
}
