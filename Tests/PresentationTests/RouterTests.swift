import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Router")
struct RouterTests {
    let file = FakePreferencesStore.Storage()

    @Test func openPushesTheLinkedRoute() {
        let router = Router(preferences: FakePreferencesStore(storage: file))

        #expect(router.open(url: "shelf://book/book-003"))
        #expect(router.open(url: "shelf://author/Ursula%20K.%20Le%20Guin"))

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
    func aMalformedLinkSetsAMessageAndKeepsThePath(link: String, message: String) {
        let store = FakePreferencesStore(storage: file)
        let router = Router(preferences: store)
        router.push(.book("book-001"))
        let writes = store.writeCount

        #expect(router.open(url: link) == false)

        #expect(router.path == [.book("book-001")])
        #expect(router.errorMessage == message)
        #expect(store.writeCount == writes)
        #expect(file.snapshot.routerPath == [.book("book-001")])
    }

    @Test func thePathIsRestoredByTheNextLaunch() {
        let first = Router(preferences: FakePreferencesStore(storage: file))
        first.open(url: "shelf://book/book-001")
        first.push(.note("note-002"))
        first.push(.author("Albert Camus"))
        first.pop()

        let next = Router(preferences: FakePreferencesStore(storage: file))

        #expect(next.path == [.book("book-001"), .note("note-002")])
    }

    @Test func everyChangeIsSaved() {
        let store = FakePreferencesStore(storage: file)
        let router = Router(preferences: store)

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
        let router = Router(preferences: store)
        store.failWrites(with: FakeError("disk full"))

        router.push(.book("book-001"))

        #expect(router.path == [.book("book-001")])
        #expect(router.errorMessage == "Could not save the current screen for the next launch: disk full")
        #expect(file.snapshot.routerPath.isEmpty)
    }

    @Test func anUnreadablePathStartsAtTheRoot() {
        let store = FakePreferencesStore(storage: file)
        store.failReads(with: FakeError("corrupt preferences"))

        let router = Router(preferences: store)

        #expect(router.path.isEmpty)
        #expect(router.errorMessage == "Could not restore the last screen: corrupt preferences")
    }
}
