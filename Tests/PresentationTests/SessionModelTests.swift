import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Session and account switching")
struct SessionModelTests {
    let ana: FakeAccount
    let ben: FakeAccount
    let anaNotes: [Note]
    let benNotes: [Note]

    init() throws {
        anaNotes = [try Note(id: "ana-1", title: "Ana's note")]
        benNotes = [try Note(id: "ben-1", title: "Ben's note")]
        ana = FakeAccount(books: [try Book(id: "ana-book", title: "Ana's book", author: "A")], notes: anaNotes)
        ben = FakeAccount(books: [try Book(id: "ben-book", title: "Ben's book", author: "B")], notes: benNotes)
    }

    func makeSession() throws -> SessionModel {
        let ana = self.ana, ben = self.ben
        return try SessionModel(account: AccountID("ana")) { account in
            switch account.name {
            case "ana": return ana.dependencies
            case "ben": return ben.dependencies
            default: throw FakeError("no credentials for '\(account)'")
            }
        }
    }

    @Test func aSwitchBuildsNewModels() throws {
        let session = try makeSession()
        let old = session.models

        #expect(session.switchAccount(to: try AccountID("ben")))

        #expect(session.account.name == "ben")
        #expect(session.models !== old)
        #expect(session.models.library !== old.library)
        #expect(session.models.notes !== old.notes)
        #expect(session.models.router !== old.router)
    }

    @Test func theOldAccountsLoadNeverShowsInTheNewAccount() async throws {
        // GIVEN Ana's notes load waiting for the server
        let session = try makeSession()
        let gate = SuspensionGate<[Note]>(honoursCancellation: false)
        await ana.notes.enqueueLoad(.gate(gate))
        let anaModels = session.models
        let anaLoad = Task { await anaModels.notes.load() }
        await gate.arrival()

        // WHEN the reader switches to Ben, and only then Ana's answer arrives
        session.switchAccount(to: try AccountID("ben"))
        await gate.open(with: anaNotes)
        await anaLoad.value

        // THEN neither Ben's models nor the discarded ones show Ana's notes
        #expect(session.models.notes.state == .idle)
        #expect(anaModels.notes.state == .idle)
        await session.models.notes.load()
        #expect(session.models.notes.notes == benNotes)
        #expect(await ben.notes.loadCount == 1)
    }

    @Test func theOldAccountsLoadFinishingAfterTheNewOneChangesNothing() async throws {
        let session = try makeSession()
        let anaGate = SuspensionGate<[Book]>(honoursCancellation: false)
        let benGate = SuspensionGate<[Book]>()
        await ana.books.enqueueLoad(.gate(anaGate))
        await ben.books.enqueueLoad(.gate(benGate))
        let anaModels = session.models
        let anaRefresh = Task { await anaModels.library.refresh() }
        await anaGate.arrival()

        session.switchAccount(to: try AccountID("ben"))
        let benModels = session.models
        let benRefresh = Task { await benModels.library.refresh() }
        await benGate.arrival()
        let benBooks = await ben.books.shelf
        await benGate.open(with: benBooks)
        await benRefresh.value
        await anaGate.open(with: await ana.books.shelf)
        await anaRefresh.value

        #expect(session.models.library.books.map(\.id) == ["ben-book"])
        #expect(anaModels.library.state == .idle)
    }

    @Test func theOldAccountsWriteDoesNotPublish() async throws {
        let session = try makeSession()
        let anaModels = session.models
        await anaModels.library.refresh()
        let gate = SuspensionGate<Void>(honoursCancellation: false)
        await ana.books.enqueueWrite(.gate(gate))
        let add = Task { await anaModels.library.addBook(title: "Late", author: "Ana") }
        await gate.arrival()

        session.switchAccount(to: try AccountID("ben"))
        await gate.open(with: ())

        #expect(await add.value == nil)
        #expect(anaModels.library.books.map(\.id) == ["ana-book"])
        #expect(session.models.library.books.isEmpty)
    }

    @Test func eachAccountHasItsOwnPreferences() throws {
        let session = try makeSession()
        session.models.favorites.toggle("ana-book")
        session.models.router.push(.book("ana-book"))

        session.switchAccount(to: try AccountID("ben"))
        #expect(session.models.favorites.favoriteIDs.isEmpty)
        #expect(session.models.router.path.isEmpty)

        session.switchAccount(to: try AccountID("ana"))
        #expect(session.models.favorites.favoriteIDs == ["ana-book"])
        #expect(session.models.router.path == [.book("ana-book")])
    }

    @Test func settingsChangesReachTheLibraryOfTheSameAccount() async throws {
        let session = try makeSession()
        try await ana.books.enqueueLoad(.value([
            Book(id: "done", title: "Done", author: "A", isFinished: true),
            Book(id: "open", title: "Open", author: "A"),
        ]))
        await session.models.library.refresh()

        session.models.settings.setShowFinished(false)

        #expect(session.models.library.visibleBooks.map(\.id) == ["open"])
    }

    @Test func aSwitchThatCannotBuildItsDependenciesKeepsTheAccount() throws {
        let session = try makeSession()
        let models = session.models

        #expect(session.switchAccount(to: try AccountID("carol")) == false)

        #expect(session.models === models)
        #expect(session.errorMessage == "Could not switch to account 'carol': no credentials for 'carol'")
    }

    @Test func switchingToTheSameAccountKeepsItsModels() throws {
        let session = try makeSession()
        let models = session.models

        #expect(session.switchAccount(to: try AccountID(" ana ")))

        #expect(session.models === models)
    }

    @Test func anAccountNeedsAName() {
        #expect(throws: DomainError.emptyTitle(field: "account")) { try AccountID("  ") }
    }
}
