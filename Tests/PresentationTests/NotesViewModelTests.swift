import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Notes view model")
struct NotesViewModelTests {
    let service: FakeNoteService
    let model: NotesViewModel
    let first: [Note]
    let second: [Note]

    init() throws {
        first = [try Note(id: "n-a", title: "From load A")]
        second = [try Note(id: "n-b", title: "From load B"), try Note(id: "n-c", title: "Also B")]
        service = FakeNoteService(notes: try SampleShelf.notes())
        model = NotesViewModel(service: service)
    }

    // MARK: Races

    @Test func aNewerLoadWinsOverAnOlderOneThatFinishesLater() async {
        // GIVEN two loads in flight, A started before B
        let gateA = SuspensionGate<[Note]>(), gateB = SuspensionGate<[Note]>()
        await service.enqueueLoad(.gate(gateA))
        await service.enqueueLoad(.gate(gateB))
        let loadA = Task { await model.load() }
        await gateA.arrival()
        let loadB = Task { await model.load() }
        await gateB.arrival()

        // WHEN B finishes first, then A
        await gateB.open(with: second)
        await loadB.value
        #expect(model.notes == second)
        await gateA.open(with: first)
        await loadA.value

        // THEN B's notes stay
        #expect(model.notes == second)
        #expect(model.state == .loaded(second))
        #expect(model.errorMessage == nil)
    }

    @Test func anOlderLoadThatFailsLaterDoesNotOverwriteANewerSuccess() async {
        let gateA = SuspensionGate<[Note]>(), gateB = SuspensionGate<[Note]>()
        await service.enqueueLoad(.gate(gateA))
        await service.enqueueLoad(.gate(gateB))
        let loadA = Task { await model.load() }
        await gateA.arrival()
        let loadB = Task { await model.load() }
        await gateB.arrival()

        await gateB.open(with: second)
        await loadB.value
        await gateA.fail(with: FakeError("timed out"))
        await loadA.value

        #expect(model.state == .loaded(second))
        #expect(model.errorMessage == nil)
    }

    @Test(arguments: [true, false])
    func aCancelledLoadNeverPublishes(serviceHonoursCancellation: Bool) async {
        // GIVEN a load waiting for the service
        let gate = SuspensionGate<[Note]>(honoursCancellation: serviceHonoursCancellation)
        await service.enqueueLoad(.gate(gate))
        let load = Task { await model.load() }
        await gate.arrival()
        #expect(model.isLoading)

        // WHEN the caller's task is cancelled, and the service answers anyway
        load.cancel()
        await gate.open(with: first)
        await load.value

        // THEN nothing was published: no notes, no failure, not loading
        #expect(model.state == .idle)
        #expect(model.errorMessage == nil)
    }

    @Test func cancelRestoresTheNotesShownBeforeTheLoad() async {
        await model.load()
        let loaded = model.notes
        let gate = SuspensionGate<[Note]>(honoursCancellation: false)
        await service.enqueueLoad(.gate(gate))
        let load = Task { await model.load() }
        await gate.arrival()

        model.cancel()
        #expect(model.state == .loaded(loaded))
        await gate.open(with: first)
        await load.value

        #expect(model.state == .loaded(loaded))
    }

    @Test func cancellingTheNewestOfTwoLoadsDoesNotLeaveTheScreenLoading() async {
        let gateA = SuspensionGate<[Note]>(honoursCancellation: false)
        let gateB = SuspensionGate<[Note]>(honoursCancellation: false)
        await service.enqueueLoad(.gate(gateA))
        await service.enqueueLoad(.gate(gateB))
        let loadA = Task { await model.load() }
        await gateA.arrival()
        let loadB = Task { await model.load() }
        await gateB.arrival()

        loadB.cancel()
        await gateB.open(with: second)
        await loadB.value
        await gateA.open(with: first)
        await loadA.value

        // A is older than the cancelled B, so it may not publish either.
        #expect(model.state == .idle)
    }

    // MARK: Rules

    @Test func duplicateIDsAreRejectedWithAMessageAndThePreviousNotesKept() async throws {
        await model.load()
        let previous = model.notes
        let duplicate = try Note(id: "note-001", title: "Copy")
        await service.enqueueLoad(.value(previous + [duplicate]))

        await model.load()

        #expect(model.notes == previous)
        #expect(model.errorMessage == "Could not load notes: duplicate ids: note-001")
        #expect(model.state == .failed(message: "Could not load notes: duplicate ids: note-001", previous: previous))
    }

    @Test func aFailedRefreshKeepsTheNotesAndSetsAMessage() async {
        await model.load()
        let previous = model.notes
        await service.enqueueLoad(.failure(FakeError("server unavailable")))

        await model.load()

        #expect(model.notes == previous)
        #expect(model.errorMessage == "Could not load notes: server unavailable")
        #expect(model.state.failureMessage == "Could not load notes: server unavailable")
    }

    @Test func theNextSuccessfulLoadClearsTheMessage() async {
        await service.enqueueLoad(.failure(FakeError("offline")))
        await model.load()
        #expect(model.state == .failed(message: "Could not load notes: offline", previous: nil))

        await model.load()

        #expect(model.errorMessage == nil)
        #expect(model.notes.count == 3)
    }

    @Test func queryFiltersTitleAndBodyIgnoringCaseAndAccents() async {
        await model.load()

        model.search("ETRANGER")
        #expect(model.visibleNotes.map(\.id) == ["note-001"])
        model.search("original WORDING")
        #expect(model.visibleNotes.map(\.id) == ["note-002"])
        model.search("muchos anos")
        #expect(model.visibleNotes.map(\.id) == ["note-003"])
        model.search("  ")
        #expect(model.visibleNotes.count == 3)
    }

    // MARK: Intents

}
