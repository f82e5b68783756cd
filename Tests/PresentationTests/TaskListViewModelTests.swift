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

    @Test func aFailedReloadKeepsTheTasks() async throws {
        await model.load()
        await service.enqueueLoad(.failure(FakeError("offline")))

        await model.load()

        #expect(model.tasks == (try SampleShelf.tasks()))
        #expect(model.state.failureMessage == "Could not load tasks: offline")
    }
}
