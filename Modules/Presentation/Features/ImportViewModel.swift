import Domain
import Observation

// MARK: - ImportViewModel

/// An import into the reader's library: a plan read from a file, written whole or not at
/// all (or only counted, for a dry run), and what it did. `shelf import` goes through it.
@MainActor
@Observable
public final class ImportViewModel<Service: LibraryImporting> {
    // MARK: State

    /// The report of the last import, loading while one is written.
    public var state: LoadingState<ImportReport> { content.state }
    /// The last failure; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    /// The error behind `errorMessage`, for a front that tells failures apart by kind.
    public var failure: (any Error)? { content.failure }

    // MARK: Dependencies

    private let service: Service
    private let content = ContentController<ImportReport>()

    public init(service: Service) {
        self.service = service
    }

    // MARK: Intents

    /// Writes the plan, or says what it would change (`dryRun`).
    /// - Parameter progress: told `(done, total)` as records are written, from the
    ///   writer's thread (a front draws it as it comes).
    /// - Returns: what was imported, or nil when the import failed (nothing was written).
    public func importLibrary(
        _ plan: Service.Plan, file: String, dryRun: Bool, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async -> ImportReport? {
        let service = self.service
        await content.load(.newestWins, action: "import \(file)") {
            try await service.importLibrary(plan, file: file, dryRun: dryRun, progress: progress)
        }
        return failure == nil ? state.value : nil
    }
}
