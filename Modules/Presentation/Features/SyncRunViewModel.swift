import Domain
import Observation

// MARK: - SyncRunViewModel

/// A sync the reader asked for now (`shelf sync`, the terminal interface's "sync"): it
/// runs through the `SyncRunning` port, passes each step on as it happens, and keeps the
/// run's report. A run never fails as such: its outcome is in the report.
@MainActor
@Observable
public final class SyncRunViewModel<Service: SyncRunning> {
    // MARK: State

    /// Whether a run is in progress.
    public private(set) var isRunning = false
    /// The report of the last run.
    public private(set) var report: Service.Report?

    // MARK: Dependencies

    private let service: Service

    public init(service: Service) {
        self.service = service
    }

    // MARK: Intents

    /// Runs a sync now.
    /// - Parameter onEvent: told each step of the run as it happens, from the engine's
    ///   task (a front draws its progress from them).
    /// - Returns: the run's report.
    public func sync(onEvent: @escaping @Sendable (Service.Event) -> Void = { _ in }) async -> Service.Report {
        isRunning = true
        defer { isRunning = false }
        let report = await service.runNow(onEvent: onEvent)
        self.report = report
        return report
    }
}
