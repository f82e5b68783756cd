import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Book view model")
struct BookViewModelTests {
    let service: FakeBookService
    let removal = FakeBookRemoval()
    let model: BookViewModel

    init() throws {
        service = FakeBookService(books: try SampleShelf.books())
        model = BookViewModel(service: service, removal: removal)
    }

    @Test func addShowsTheNewBook() async throws {
        let book = try #require(await model.add(title: "  Kindred ", author: "Octavia E. Butler"))
        #expect(book.title == "Kindred")
        #expect(model.book == book)
        #expect(model.failure == nil && model.errorMessage == nil)
    }

    @Test func anEditARuleRefusesIsNeverWritten() async throws {
        model.show(try #require(try SampleShelf.books().first))
        #expect(await model.edit(title: "   ", author: nil) == nil)
        #expect(model.failure as? DomainError != nil, "the rule's own error, for the front to sort")
        #expect(model.errorMessage?.hasPrefix("Could not edit the book: ") == true)
        #expect(await service.writes.isEmpty)
    }

    @Test func anEditIsSavedThenShown() async throws {
        let first = try #require(try SampleShelf.books().first)
        model.show(first)
        let saved = try #require(await model.edit(title: nil, author: "U. K. Le Guin"))
        #expect(saved.author == "U. K. Le Guin" && saved.title == first.title)
        #expect(model.book == saved)
        #expect(await service.writes == ["update \(first.id)"])
    }

    @Test func aFailedWriteKeepsTheBookShownAndSaysWhy() async throws {
        let first = try #require(try SampleShelf.books().first)
        model.show(first)
        await service.enqueueWrite(.failure(FakeError("the store is read-only")))
        #expect(await model.setFinished(!first.isFinished) == nil)
        #expect(model.book == first)
        #expect(model.failure as? FakeError == FakeError("the store is read-only"))
    }

    @Test func aChangeCancelledInFlightPublishesNothing() async throws {
        let first = try #require(try SampleShelf.books().first)
        model.show(first)
        let gate = SuspensionGate<Void>(honoursCancellation: false)
        await service.enqueueWrite(.gate(gate))
        let finish = Task { await model.setFinished(!first.isFinished) }
        await gate.arrival()

        model.cancel()
        await gate.open(with: ())

        #expect(await finish.value == nil)
        #expect(model.book == first)
        #expect(model.failure == nil)
    }

    @Test func removalGoesThroughTheRemovalPortAndItsRefusalIsKept() async {
        await removal.refuse(with: FakeError("2 notes refer to it"))
        #expect(await model.remove(id: "b-1", mode: .refuseIfReferenced) == nil)
        #expect(model.failure as? FakeError == FakeError("2 notes refer to it"))

        let removed = await model.remove(id: "b-1", mode: .cascade)
        #expect(removed?.mode == .cascade)
        #expect(await removal.calls == ["b-1 refuseIfReferenced", "b-1 cascade"])
        #expect(model.failure == nil)
    }
}
