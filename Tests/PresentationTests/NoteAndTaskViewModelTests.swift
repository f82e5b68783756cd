import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Note view model")
struct NoteViewModelTests {
    let service: FakeNoteService
    let model: NoteViewModel

    init() throws {
        service = FakeNoteService(notes: try SampleShelf.notes())
        model = NoteViewModel(service: service)
    }

    @Test func anEditRenamesAndReplacesTheBody() async throws {
        let first = try #require(try SampleShelf.notes().first)
        model.show(first)
        let saved = try #require(await model.edit(title: " Walls ", body: "On both sides."))
        #expect(saved.title == "Walls" && saved.body == "On both sides.")
        #expect(model.note == saved)
        #expect(await service.writes.count == 1)
    }

    @Test func anEmptyTitleIsRefusedWithoutAWrite() async throws {
        model.show(try #require(try SampleShelf.notes().first))
        #expect(await model.edit(title: "", body: nil) == nil)
        #expect(model.failure as? DomainError != nil)
        #expect(await service.writes.isEmpty)
    }

    @Test func aRemovalCancelledInFlightPublishesNothing() async throws {
        let gate = SuspensionGate<Void>(honoursCancellation: false)
        await service.enqueueWrite(.gate(gate))
        let remove = Task { await model.remove(id: "n-1") }
        await gate.arrival()

        model.cancel()
        await gate.open(with: ())

        #expect(await remove.value == false)
        #expect(model.failure == nil && model.errorMessage == nil)
    }
}

@MainActor
@Suite("Task view model")
struct TaskViewModelTests {
    let service: FakeTaskService
    let model: TaskViewModel

    init() throws {
        service = FakeTaskService(tasks: try SampleShelf.tasks())
        model = TaskViewModel(service: service)
    }

    @Test func addTrimsTheTitleAndAnEmptyOneIsRefused() async throws {
        let task = try #require(await model.add(title: "\t Read the afterword  \n"))
        #expect(task.title == "Read the afterword")
        #expect(await model.add(title: "   ") == nil)
        #expect(model.failure as? DomainError != nil)
        #expect(model.task == task, "a refused add leaves the task shown")
    }

    @Test func setDoneSavesTheShownTask() async throws {
        let first = try #require(try SampleShelf.tasks().first)
        model.show(first)
        let saved = try #require(await model.setDone(!first.isDone))
        #expect(saved.isDone != first.isDone)
        #expect(await service.writes.count == 1)
    }

    @Test func setDoneWithNothingShownIsRefused() async {
        #expect(await model.setDone(true) == nil)
        #expect(model.failure as? FeatureError == .notLoaded("task"))
        #expect(await service.writes.isEmpty)
    }
}
