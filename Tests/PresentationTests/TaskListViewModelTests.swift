import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Task list view model")
struct TaskListViewModelTests {
    let service: FakeTaskService
    let model: TaskListViewModel

    init() throws {
        service = FakeTaskService(tasks: try SampleShelf.tasks())
        model = TaskListViewModel(service: service)
    }

    @Test func addTrimsTheTitle() async throws {
        await model.load()

        let task = try #require(await model.add(title: "\t Read the afterword  \n"))

        #expect(task.title == "Read the afterword")
        #expect(model.tasks.last == task)
        #expect(await service.writes == ["add Read the afterword"])
        #expect(model.errorMessage == nil)
    }

    @Test(arguments: ["", "   ", "\n\t"])
    func anEmptyTitleSetsAMessageAndAddsNothing(title: String) async {
        await model.load()

        #expect(await model.add(title: title) == nil)

        #expect(model.errorMessage == "Could not add the task: title must not be empty")
        #expect(model.tasks.count == 3)
        #expect(await service.writes.isEmpty)
    }

    @Test func toggleFlipsDoneAndCompletedCountFollows() async {
        await model.load()
        #expect(model.completedCount == 1)

        #expect(await model.toggle(id: "task-002"))
        #expect(model.completedCount == 2)
        #expect(model.task(id: "task-002")?.isDone == true)

        #expect(await model.toggle(id: "task-001"))
        #expect(model.completedCount == 1)
        #expect(await service.stored.filter(\.isDone).map(\.id) == ["task-002"])
    }

    @Test func deleteRemovesAndCompletedCountFollows() async {
        await model.load()

        #expect(await model.delete(id: "task-001"))

        #expect(model.tasks.map(\.id) == ["task-002", "task-003"])
        #expect(model.completedCount == 0)
    }

    @Test func intentsOnUnknownTasksAreRefused() async {
        await model.load()

        #expect(await model.toggle(id: "task-404") == false)
        #expect(model.errorMessage == "Could not update the task: no task with id 'task-404'")
        #expect(await model.delete(id: "task-404") == false)
        #expect(model.errorMessage == "Could not delete the task: no task with id 'task-404'")
        #expect(await service.writes.isEmpty)
    }

    @Test func aFailedToggleLeavesTheTaskAsItWas() async {
        await model.load()
        await service.enqueueWrite(.failure(FakeError("offline")))

        #expect(await model.toggle(id: "task-002") == false)

        #expect(model.task(id: "task-002")?.isDone == false)
        #expect(model.completedCount == 1)
        #expect(model.errorMessage == "Could not update the task: offline")
    }

    @Test func aFailedReloadKeepsTheTasks() async throws {
        await model.load()
        await service.enqueueLoad(.failure(FakeError("offline")))

        await model.load()

        #expect(model.tasks == (try SampleShelf.tasks()))
        #expect(model.state.failureMessage == "Could not load tasks: offline")
    }
}
