import Domain
import Foundation
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Sync status model")
struct SyncStatusViewModelTests {
    let provider = FakeSyncStatusProvider(status: SampleShelf.busySyncStatus)

    @Test func readsTheStatus() async {
        let model = SyncStatusViewModel(provider: provider)

        await model.refresh()

        #expect(model.status == SampleShelf.busySyncStatus)
        #expect(model.needsAttention)
        #expect(model.isBackingOff(at: SampleShelf.now))
        #expect(!model.isBackingOff(at: SampleShelf.now.addingTimeInterval(301)))
    }

    @Test func aQuietStatusNeedsNoAttention() async {
        await provider.setStatus(SyncStatus(lastSuccess: SampleShelf.now))
        let model = SyncStatusViewModel(provider: provider)

        await model.refresh()

        #expect(!model.needsAttention)
        #expect(!model.isBackingOff(at: SampleShelf.now))
    }

    @Test func aFailedReadKeepsTheLastStatus() async {
        let model = SyncStatusViewModel(provider: provider)
        await model.refresh()
        await provider.enqueue(.failure(FakeError("database is locked")))

        await model.refresh()

        #expect(model.status == SampleShelf.busySyncStatus)
        #expect(model.errorMessage == "Could not read the sync status: database is locked")
    }

    @Test func twoRefreshesInFlightReadOnce() async {
        let model = SyncStatusViewModel(provider: provider)
        let gate = SuspensionGate<SyncStatus>()
        await provider.enqueue(.gate(gate))
        let first = Task { await model.refresh() }
        await gate.arrival()
        let joined = Checkpoint()
        let second = Task { joined.pass(); await model.refresh() }
        await joined.reached()

        await gate.open(with: SyncStatus(pendingChanges: 2))
        await first.value
        await second.value

        #expect(await provider.callCount == 1)
        #expect(model.status?.pendingChanges == 2)
    }
}
