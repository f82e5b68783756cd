import ArgumentParsing
import Domain
import Foundation
import Presentation
import Repositories
import Screens

// MARK: - shelf import

struct ImportCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "import", abstract: "Import books (and notes) from Goodreads, Calibre or a Shelf export.",
        discussion: """
        Formats: Goodreads' library export CSV (finished when Exclusive Shelf is 'read'; a
        review becomes a note), Calibre's 'calibredb list --for-machine' JSON, and Shelf's
        own export (JSON or CSV). The format is guessed from the content unless --format
        says. Importing a file again adds nothing: ids are derived from the source's ids.
        A file is imported whole or not at all; a malformed one is refused, naming its
        first bad line. Rows that cannot become a book are skipped and listed with why.
        """,
        examples: [
            Example("What a Goodreads export would add, without adding it", "shelf import --dry-run goodreads_library_export.csv"),
            Example("A Calibre library", "shelf import --format calibre calibre.json"),
        ])

    @Argument(help: "The file to import.", completion: .file)
    var file: String
    @Option(value: "format", help: "goodreads, calibre or shelf (default: guessed).")
    var format: ImportFormat?
    @Flag(help: "Say what would be imported without writing anything.")
    var dryRun = false

    func run(_ context: CommandContext) async throws -> ExitCode {
        let plan: ImportPlan
        do {
            plan = try LibraryImport.plan(fileAt: URL(fileURLWithPath: context.program.absolutePath(file)), format: format)
        } catch {
            throw CommandFailure(error.kind == .unreadable ? .noInput : .dataError, error.description)
        }
        let model = ImportViewModel(service: try context.session().importer)
        let progress = ImportProgress(output: context.output, total: plan.items.count)
        let imported = await model.importLibrary(plan, file: file, dryRun: dryRun, progress: { done, total in progress.draw(done, total) })
        progress.finish()
        let report = try outcome(imported, failure: model.failure)
        try context.output.show(ImportReportScreen(report, hasServer: !context.output.destination.isLocalOnly))
        return .success
    }
}

// MARK: - shelf export

struct ExportCommand: ShelfCommand {
    static let configuration = CommandConfiguration(
        name: "export", abstract: "Export the account's data, unsynced changes included.",
        discussion: """
        The JSON shape is stable and documented in the README; 'shelf import' reads it (and
        the CSV) back as it was.
        """,
        examples: [
            Example("Everything of the reader's, as JSON, to standard output", "shelf export"),
            Example("The books and notes as CSV, in a file", "shelf export --format csv --collection books --collection notes --output library.csv"),
        ])

    @Option(value: "json|csv", help: "json (default) or csv.")
    var format = ShelfExport.Format.json
    @Option(
        value: "name", help: "Only this collection; repeat for several (default: all of the reader's).",
        allowed: [.books, .notes, .tasks, .cart, .preferences, .sessions, .products])
    var collection: [CollectionName]
    @Option(value: "file", help: "Write to this file instead of standard output.", completion: .file)
    var output: String?

    func run(_ context: CommandContext) async throws -> ExitCode {
        var collections: [CollectionName] = []
        for name in collection.isEmpty ? ShelfExport.defaultCollections : collection where !collections.contains(name) {
            collections.append(name)
        }
        let session = try context.session()
        let (data, summary) = try ShelfExport.export(collections, from: session.store, format: format, exportedAt: context.program.clock.now())
        guard let output else {
            _ = context.console.write([UInt8](data), .output)
            return .success
        }
        do {
            try ShelfExport.write(data, to: URL(fileURLWithPath: context.program.absolutePath(output)))
        } catch {
            throw CommandFailure(.cannotCreate, error.description)
        }
        try context.output.confirm(ExportSummaryScreen(file: output, summary: summary))
        return .success
    }
}

// MARK: - ImportProgress

/// A bar on standard error while a large import is written, on a terminal only (and not
/// with `--quiet` or `--json`): `[#####-----] 5000/10000 records`.
final class ImportProgress: Sendable {
    private let terminal: Terminal
    private let enabled: Bool

    /// Imports smaller than this finish before a bar would be seen.
    static let threshold = 2000

    init(output: Output, total: Int) {
        terminal = output.terminal
        enabled = output.terminal.stderrIsTerminal && !output.quiet && !output.isJSON && total >= Self.threshold
    }

    func draw(_ done: Int, _ total: Int) {
        guard enabled, total > 0 else { return }
        let width = 20
        let filled = min(width, done * width / total)
        terminal.writeErr("\r[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(done)/\(total) records")
    }

    func finish() {
        guard enabled else { return }
        terminal.writeErr("\r" + String(repeating: " ", count: 48) + "\r")
    }
}

// MARK: - Values on the command line

extension ImportFormat: ExpressibleByArgument {}
extension ExportFormat: ExpressibleByArgument {}
