import ArgumentParsing
import Domain
import Foundation
import Presentation
import Repositories

// MARK: - InterchangeCommands

/// `shelf import FILE [--format F] [--dry-run]` and
/// `shelf export [--format json|csv] [--collection NAME…] [--output FILE]`.
@MainActor
enum InterchangeCommands {
    static func importFile(_ context: CommandContext) async throws -> ExitCode {
        let path = try context.argument("file")
        let format = context.invocation.option("format").flatMap(ImportFormat.init(rawValue:))
        let dryRun = context.invocation.flag("dry-run")
        let plan: ImportPlan
        do {
            plan = try LibraryImport.plan(fileAt: URL(fileURLWithPath: path), format: format)
        } catch {
            throw CommandFailure(error.kind == .unreadable ? .noInput : .dataError, error.description)
        }
        let session = try context.session()
        let progress = ImportProgress(output: context.output, total: plan.items.count)
        let report = try LibraryImport.apply(
            plan, to: session.store, file: path, dryRun: dryRun, progress: { done, total in progress.draw(done, total) })
        progress.finish()
        if !dryRun { await session.repositories.invalidateAll() }
        try context.output.show(ImportReportScreen(report))
        return .success
    }

    static func export(_ context: CommandContext) async throws -> ExitCode {
        let format = ShelfExport.Format(rawValue: context.invocation.option("format") ?? "json") ?? .json
        let named = context.invocation.options("collection").compactMap(CollectionName.init(rawValue:))
        var collections: [CollectionName] = []
        for collection in named.isEmpty ? ShelfExport.defaultCollections : named where !collections.contains(collection) {
            collections.append(collection)
        }
        let session = try context.session()
        let (data, summary) = try ShelfExport.export(collections, from: session.store, format: format)
        guard let output = context.invocation.option("output") else {
            FileHandle.standardOutput.write(data)
            return .success
        }
        do {
            try ShelfExport.write(data, to: URL(fileURLWithPath: output))
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
