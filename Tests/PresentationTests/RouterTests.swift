import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Router")
struct RouterTests {
    let file = FakePreferencesStore.Storage()
    let places: FakePlaceService

    init() throws {
        places = FakePlaceService(books: try SampleShelf.books(), notes: try SampleShelf.notes(), favorites: ["book-003"])
    }

    @Test func openPushesTheLinkedRoute() async {
        let router = Router(preferences: FakePreferencesStore(storage: file), places: places)

        #expect(await router.open(url: "shelf://book/book-003"))
        #expect(await router.open(url: "shelf://author/Ursula%20K.%20Le%20Guin"))

        #expect(router.path == [.book("book-003"), .author("Ursula K. Le Guin")])
        #expect(router.current == .author("Ursula K. Le Guin"))
        #expect(router.errorMessage == nil)
    }

    @Test(arguments: [
        ("shelf://book/", "Could not open the link: the book link has no id after 'book/'"),
        ("https://example.com/book/1", "Could not open the link: unsupported scheme 'https'; links start with shelf://"),
        ("shelf://shelf/1", "Could not open the link: unknown link kind 'shelf'; expected one of: book, author, note"),
        ("book-003", "Could not open the link: 'book-003' is not a link; expected shelf://<book|author|note>/<value>"),
    ])
    func aMalformedLinkSetsAMessageAndKeepsThePath(link: String, message: String) async {
        let store = FakePreferencesStore(storage: file)
        let router = Router(preferences: store, places: places)
        router.push(.book("book-001"))
        let writes = store.writeCount

        #expect(await router.open(url: link) == false)
        if case .malformed = router.refusal {} else { Issue.record("refusal \(String(describing: router.refusal))") }

        #expect(router.path == [.book("book-001")])
        #expect(router.errorMessage == message)
        #expect(store.writeCount == writes)
        #expect(file.snapshot.routerPath == [.book("book-001")])
    }

    @Test func thePathIsRestoredByTheNextLaunch() async {
        let first = Router(preferences: FakePreferencesStore(storage: file), places: places)
        await first.open(url: "shelf://book/book-001")
        first.push(.note("note-002"))
        first.push(.author("Albert Camus"))
        first.pop()

        let next = Router(preferences: FakePreferencesStore(storage: file), places: places)

        #expect(next.path == [.book("book-001"), .note("note-002")])
    }

    @Test func everyChangeIsSaved() {
        let store = FakePreferencesStore(storage: file)
        let router = Router(preferences: store, places: places)

        router.push(.book("a"))
        #expect(file.snapshot.routerPath == [.book("a")])
        router.push(.book("b"))
        #expect(file.snapshot.routerPath == [.book("a"), .book("b")])
        #expect(router.pop() == .book("b"))
        #expect(file.snapshot.routerPath == [.book("a")])
        router.popToRoot()
        #expect(file.snapshot.routerPath == [])
        #expect(router.pop() == nil)
        #expect(store.writeCount == 4)
    }

    @Test func aFailedSaveKeepsNavigatingAndSaysSo() {
        let store = FakePreferencesStore(storage: file)
        let router = Router(preferences: store, places: places)
        store.failWrites(with: FakeError("disk full"))

        router.push(.book("book-001"))

        #expect(router.path == [.book("book-001")])
        #expect(router.errorMessage == "Could not save the current screen for the next launch: disk full")
        #expect(file.snapshot.routerPath.isEmpty)
    }

    @Test func anUnreadablePathStartsAtTheRoot() {
        let store = FakePreferencesStore(storage: file)
        store.failReads(with: FakeError("corrupt preferences"))

        let router = Router(preferences: store, places: places)

        #expect(router.path.isEmpty)
        #expect(router.errorMessage == "Could not restore the last screen: corrupt preferences")
    }

    // MARK: Destinations

    @Test func aLinkLeadsToItsPlaceAndAPrefixBecomesTheFullID() async throws {
        let router = Router(preferences: FakePreferencesStore(storage: file), places: places)

        #expect(await router.open(url: "shelf://book/book-003"))
        guard case .book(let book, _, _, let isFavorite) = router.destination.value else {
            Issue.record("destination \(router.destination)")
            return
        }
        #expect(book.id == "book-003" && isFavorite)

        #expect(await router.open(url: "shelf://author/ursula%20k.%20le%20guin"))
        #expect(router.current == .author("Ursula K. Le Guin"))
        guard case .author(_, let books, let count) = router.destination.value else {
            Issue.record("destination \(router.destination)")
            return
        }
        #expect(books.map(\.id) == ["book-003"] && count == 1)

        let note = try SampleShelf.notes()[0]
        #expect(await router.open(url: "shelf://note/\(note.id)"))
        #expect(router.destination.value == .note(note, book: try SampleShelf.books().first { $0.id == note.bookID }))
    }

    @Test func aLinkToNothingIsRefusedAndNothingIsPushed() async {
        let store = FakePreferencesStore(storage: file)
        let router = Router(preferences: store, places: places)
        #expect(await router.open(url: "shelf://book/book-001"))
        let writes = store.writeCount

        #expect(await router.open(url: "shelf://book/book-404") == false)
        #expect(router.refusal == .lookup(.notFound(.books, reference: "book-404")))
        #expect(router.errorMessage == "Could not open the link: no book with id or title 'book-404'")
        #expect(await router.open(url: "shelf://author/Nobody") == false)
        #expect(router.refusal == .lookup(.noBooks(byAuthor: "Nobody")))
        // NB: every sample book's id starts with "book-".
        #expect(await router.open(url: "shelf://book/book-") == false)
        if case .lookup(.ambiguous(_, _, let candidates, _)) = router.refusal {
            #expect(candidates.count > 1)
        } else {
            Issue.record("refusal \(String(describing: router.refusal))")
        }

        #expect(router.path == [.book("book-001")])
        #expect(store.writeCount == writes)
        if case .book(let book, _, _, _) = router.destination.value { #expect(book.id == "book-001") }
    }

    @Test func backShowsTheNewTop() async {
        let router = Router(preferences: FakePreferencesStore(storage: file), places: places)
        await router.open(url: "shelf://book/book-003")
        await router.open(url: "shelf://author/Albert%20Camus")

        router.pop()
        await router.showDestination()

        if case .book(let book, _, _, _) = router.destination.value { #expect(book.id == "book-003") } else {
            Issue.record("destination \(router.destination)")
        }
        router.pop()
        await router.showDestination()
        #expect(router.destination == .idle)
    }

    @Test func aPlaceGoneSinceItWasOpenedSaysSo() async {
        let router = Router(preferences: FakePreferencesStore(storage: file), places: places)
        router.push(.book("book-999"))

        await router.showDestination()

        #expect(router.destination.failureMessage == "Could not show shelf://book/book-999: no book with id or title 'book-999'")
        #expect(router.path == [.book("book-999")])
    }

    // MARK: Races

    /// A link whose place arrives after a newer link was followed changes nothing: the
    /// newer intent wins, whatever order the lookups finish in.
    @Test func aSlowLinkOvertakenByANewerOneIsDropped() async throws {
        let gate = SuspensionGate<Void>()
        var gated = places
        gated.gates = [.book("book-001"): gate]
        let router = Router(preferences: FakePreferencesStore(storage: file), places: gated)

        let slow = Task { await router.open(url: "shelf://book/book-001") }
        await gate.arrival()
        #expect(await router.open(url: "shelf://book/book-003"))
        await gate.open(with: ())

        #expect(await slow.value == false)
        #expect(router.path == [.book("book-003")])
        if case .book(let book, _, _, _) = router.destination.value { #expect(book.id == "book-003") } else {
            Issue.record("destination \(router.destination)")
        }
        #expect(router.refusal == nil && router.errorMessage == nil)
    }

    /// A destination still loading when the reader goes back is not shown over the new top.
    @Test func aDestinationOvertakenByBackIsDropped() async throws {
        let gate = SuspensionGate<Void>()
        var gated = places
        gated.gates = [.book("book-005"): gate]
        let router = Router(preferences: FakePreferencesStore(storage: file), places: gated)
        router.push(.book("book-003"))
        router.push(.book("book-005"))

        let loading = Task { await router.showDestination() }
        await gate.arrival()
        router.pop()
        await router.showDestination()
        await gate.open(with: ())
        await loading.value

        if case .book(let book, _, _, _) = router.destination.value { #expect(book.id == "book-003") } else {
            Issue.record("destination \(router.destination)")
        }
    }
}
