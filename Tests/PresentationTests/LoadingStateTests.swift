import Observation
import Synchronization
import Presentation
import Testing
import TestSupport

@Suite("Loading state")
struct LoadingStateTests {
    @Test func valueIsKeptWhileLoadingAndAfterAFailure() {
        let loaded = LoadingState<[Int]>.loaded([1, 2])

        #expect(loaded.startingLoad() == .loading(previous: [1, 2]))
        #expect(loaded.startingLoad().value == [1, 2])
        #expect(loaded.startingLoad().failing("offline") == .failed(message: "offline", previous: [1, 2]))
        #expect(LoadingState<[Int]>.idle.startingLoad() == .loading(previous: nil))
    }

    @Test func accessorsNameTheCase() {
        #expect(LoadingState<Int>.loading(previous: nil).isLoading)
        #expect(!LoadingState<Int>.loaded(1).isLoading)
        #expect(LoadingState<Int>.failed(message: "m", previous: 3).failureMessage == "m")
        #expect(LoadingState<Int>.failed(message: "m", previous: 3).value == 3)
        #expect(LoadingState<Int>.idle.value == nil)
        #expect(!LoadingState<Int>.idle.hasValue)
    }

    @Test func localChangesKeepTheCase() {
        #expect(LoadingState<[Int]>.loaded([1]).mapValue { $0 + [2] } == .loaded([1, 2]))
        #expect(LoadingState<[Int]>.failed(message: "m", previous: [1]).mapValue { $0 + [2] } == .failed(message: "m", previous: [1, 2]))
        #expect(LoadingState<[Int]>.idle.mapValue { $0 + [2] } == .idle)
    }
}

@MainActor
@Suite("Observation")
struct ObservationTests {
    /// Views re-render through Observation; a published change must reach them.
    @Test func aLoadNotifiesObserversOfTheModelsState() async throws {
        let model = BookSearchViewModel(service: FakeBookService(books: try SampleShelf.books()))
        let changes = ChangeCounter()
        withObservationTracking { _ = model.books } onChange: { changes.count() }

        await model.search("", unfinishedOnly: false)

        #expect(changes.value >= 1)
    }

    @Test func searchNotifiesObserversOfTheBooksShown() async throws {
        let model = BookSearchViewModel(service: FakeBookService(books: try SampleShelf.books()))
        await model.search("", unfinishedOnly: false)
        let changes = ChangeCounter()
        withObservationTracking { _ = model.books } onChange: { changes.count() }

        await model.search("dune", unfinishedOnly: false)

        #expect(changes.value == 1)
    }
}

/// Counts observation callbacks (which may arrive on any thread).
final class ChangeCounter: Sendable {
    private let counter = Mutex(0)
    func count() { counter.withLock { $0 += 1 } }
    var value: Int { counter.withLock { $0 } }
}
