import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Decision view models")
struct DecisionViewModelTests {
    // MARK: Conflicts

    @Test func aConflictIsResolvedOnlyOnceOpened() async throws {
        let service = FakeDecisions(conflicts: ["b-1", "n-7"])
        let model = ConflictsViewModel(service: service)

        #expect(await model.resolve("local") == nil)
        #expect(model.failure as? FeatureError == .notLoaded("conflict"))

        #expect(await model.open("n-", in: .notes))
        #expect(model.detail == "notes/n-7: title clashes")
        #expect(await model.resolve("remote") == "kept remote")
        #expect(model.detail == nil && model.failure == nil)
        #expect(await service.writes == ["resolve notes/n-7 remote"])
    }

    @Test func aReferenceThatNamesNoConflictKeepsTheServicesError() async {
        let model = ConflictsViewModel(service: FakeDecisions(conflicts: ["b-1"]))
        #expect(await model.open("zz", in: nil) == false)
        #expect(model.failure as? FakeError == FakeError("no conflict 'zz'"))
        #expect(model.errorMessage == "Could not open the conflict: no conflict 'zz'")
    }

    @Test func aLoadCancelledInFlightPublishesNothing() async {
        let service = FakeDecisions(conflicts: ["b-1"])
        let model = ConflictsViewModel(service: service)
        let gate = SuspensionGate<Void>(honoursCancellation: false)
        await service.enqueueLoad(.gate(gate))
        let load = Task { await model.load() }
        await gate.arrival()
        #expect(model.state.isLoading)

        model.cancel()
        await gate.open(with: ())
        await load.value

        #expect(model.state.value == nil && !model.state.isLoading)
        #expect(model.failure == nil)
    }

    // MARK: Failed changes

    @Test func aRetryThatFailsSaysWhyAndTheNextSuccessClearsIt() async {
        let service = FakeDecisions(failed: [3, 4])
        let model = FailedChangesViewModel(service: service)
        await model.load()
        #expect(model.state.value == [3, 4])

        await service.enqueueWrite(.failure(FakeError("the store is locked")))
        #expect(await model.retry(3) == false)
        #expect(model.failure as? FakeError == FakeError("the store is locked"))

        #expect(await model.discard(4))
        #expect(model.failure == nil && model.errorMessage == nil)
        #expect(await service.writes == ["retry 3", "discard 4"])
    }

    // MARK: Pending changes

    @Test func undoTakesBackTheLatestOrTheNamedOperationAndRedoPutsItBack() async {
        let service = FakeDecisions(pending: ["b-1", "n-7", "t-3"])
        let model = PendingChangesViewModel(service: service)
        await model.load()
        #expect(model.state.value == ["b-1", "n-7", "t-3"])
        let yes: @MainActor (FakeUndoStep) async throws -> Bool = { _ in true }

        #expect(await model.undo(confirm: yes) == "t-3")
        #expect(await model.undo(.record(.books, "b-1"), confirm: yes) == "b-1")
        #expect(await model.undo(.record(.books, "b-9"), confirm: yes) == nil)
        #expect(model.failure as? FakeError == FakeError("nothing to undo"))
        #expect(await model.redo(confirm: yes) == "b-1")
        #expect(await service.writes == ["undo t-3", "undo b-1", "redo b-1"])
    }

    /// A step that needs a yes asks the front, and without one writes nothing.
    @Test func anUndoThatNeedsAYesAsksAndWritesNothingWithoutOne() async {
        let service = FakeDecisions(pending: ["b-1"])
        await service.requireConfirmation(of: "b-1", ["removes book b-1"])
        let model = PendingChangesViewModel(service: service)
        var asked: [[String]] = []

        #expect(await model.undo(confirm: { step in asked.append(step.confirmationReasons); return false }) == nil)
        #expect(model.failure as? FeatureError == .declined)
        #expect(asked == [["removes book b-1"]])
        #expect(await service.writes.isEmpty)

        #expect(await model.undo(confirm: { _ in true }) == "b-1")
        #expect(model.failure == nil)
        #expect(await service.writes == ["undo b-1"])
    }

    @Test func theHistoryLoadsOnItsOwn() async {
        let service = FakeDecisions(pending: ["b-1", "n-7"])
        let model = PendingChangesViewModel(service: service)
        _ = await model.undo(confirm: { _ in true })
        await model.loadHistory()
        #expect(model.history.value == ["b-1", "n-7 (undone)"])
    }

    // MARK: Import

    @Test func anImportIsLoadingUntilItIsWrittenThenReportsIt() async {
        let service = FakeDecisions()
        let model = ImportViewModel(service: service)
        let gate = SuspensionGate<Void>()
        await service.enqueueWrite(.gate(gate))
        let running = Task { await model.importLibrary(2, file: "library.json", dryRun: false) }
        await gate.arrival()
        #expect(model.state.isLoading)

        await gate.open(with: ())
        let report = await running.value
        #expect(report?.rows == 2 && report?.file == "library.json")
        #expect(model.state.value == report)
    }

    @Test func aFailedImportReportsNothingAndKeepsTheError() async {
        let service = FakeDecisions()
        let model = ImportViewModel(service: service)
        await service.enqueueWrite(.failure(FakeError("disk full")))
        #expect(await model.importLibrary(2, file: "library.json", dryRun: false) == nil)
        #expect(model.failure as? FakeError == FakeError("disk full"))
    }
}
