import Domain
import Foundation
import Observation

// MARK: - SyncStatusViewModel

/// What the sync engine last did, for the status screen: last success, changes
/// waiting, conflicts, dead letters and the server's backoff.
@MainActor
@Observable
public final class SyncStatusViewModel {
    // MARK: State

    public var state: LoadingState<SyncStatus> { content.state }
    /// The last failure to read the status; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }

    /// The status as last read.
    public var status: SyncStatus? { state.value }

    public var isLoading: Bool { state.isLoading }

    /// Whether the server asked clients to wait past `now`.
    public func isBackingOff(at now: Date) -> Bool {
        guard let until = status?.backoffUntil else { return false }
        return until > now
    }

    /// Whether something waits for the reader: conflicts to resolve or dead letters.
    public var needsAttention: Bool {
        guard let status else { return false }
        return status.conflicts > 0 || status.deadLetters > 0
    }

    // MARK: Dependencies

    private let provider: any SyncStatusProviding
    private let content = ContentController<SyncStatus>()

    public init(provider: any SyncStatusProviding) {
        self.provider = provider
    }

    // MARK: Loading

    /// Reads the status; a call while a read is in flight joins it. A failed read keeps
    /// the status on screen.
    public func refresh() async {
        let provider = self.provider
        await content.load(.joinInFlight, action: "read the sync status") {
            try await provider.syncStatus()
        }
    }

    /// Cancels in-flight work; nothing it would have read is published.
    public func cancel() {
        content.cancel()
    }
}
