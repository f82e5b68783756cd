import Domain
import Presentation
import Synchronization
import Testing
import TestSupport

@MainActor
@Suite("Sync run view model")
struct SyncRunViewModelTests {
    @Test func aRunIsInProgressUntilItsReportArrivesAndItsStepsArePassedOn() async {
        let service = FakeSyncRun(events: ["pulled books", "pushed 1 change"])
        let model = SyncRunViewModel(service: service)
        let gate = SuspensionGate<String>()
        await service.hold(at: gate)
        let seen = StepLog()

        let run = Task { await model.sync { seen.append($0) } }
        await gate.arrival()
        #expect(model.isRunning)
        #expect(model.report == nil)

        await gate.open(with: "synced")
        #expect(await run.value == "synced")
        #expect(!model.isRunning)
        #expect(model.report == "synced")
        #expect(seen.all == ["pulled books", "pushed 1 change"])
    }
}

/// A `SyncRunning` whose run tells its events, then waits at a gate for its report.
actor FakeSyncRun: SyncRunning {
    private let events: [String]
    private var gate: SuspensionGate<String>?

    init(events: [String]) {
        self.events = events
    }

    func hold(at gate: SuspensionGate<String>) {
        self.gate = gate
    }

    func runNow(onEvent: @escaping @Sendable (String) -> Void) async -> String {
        for event in events { onEvent(event) }
        return (try? await gate?.pass()) ?? "synced"
    }
}

/// The steps a run passed on, in order.
final class StepLog: Sendable {
    private let steps = Mutex<[String]>([])
    func append(_ step: String) { steps.withLock { $0.append(step) } }
    var all: [String] { steps.withLock { $0 } }
}
