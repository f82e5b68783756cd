import Domain
import Foundation
import RecordDTOs
import Records
import Services
import Testing
import TestSupport

@Suite("Kinto records (real server)")
struct KintoRecordsTests {
    // MARK: CRUD

    @Test func createReadUpdateDeleteABook() async throws {
        let account = try await KintoTestAccount()
        let books = account.collection(.books)
        let dune = try Book(id: "book-dune", title: "Dune", author: "Frank Herbert")

        let created = try await account.create(BookDTO.self, dune)
        #expect(created.value == dune)
        #expect(try RecordDecoding.decode(BookDTO.self, from: try await books.record(id: "book-dune")) == created)

        var finished = dune
        finished.isFinished = true
        let updated = try await account.update(BookDTO.self, finished, ifMatch: Int(created.lastModified))
        #expect(updated.value.isFinished)
        #expect(updated.lastModified > created.lastModified)
        #expect(try await account.list(BookDTO.self).map(\.value) == [finished])

        let deletedAt = try await books.delete(id: "book-dune", ifMatch: Int(updated.lastModified)).lastModified
        #expect(deletedAt > updated.lastModified)
        #expect(try await account.list(BookDTO.self).isEmpty)
        let error = await #expect(throws: APIError.self) { try await books.record(id: "book-dune") }
        guard case .notFound = error else { Issue.record("expected notFound, got \(String(describing: error))"); return }
    }

    @Test func everyCollectionRoundTripsItsDomainValues() async throws {
        let account = try await KintoTestAccount()
        let note = try Note(id: "note-1", bookID: nil, title: "Café — 📚", body: "line\n\"two\"")
        #expect(try await account.create(NoteDTO.self, note).value == note)
        let task = try ReadingTask(id: "task-1", title: "Read Solaris", isDone: true)
        #expect(try await account.create(ReadingTaskDTO.self, task).value == task)
        let item = try CartItem(productID: "prod-002", quantity: 3)
        #expect(try await account.create(CartItemDTO.self, item).value == item)
        // What was written reads back identical through the raw path as well.
        let raw = try await account.collection(.notes).record(id: "note-1")
        #expect(try RecordDecoding.decode(NoteDTO.self, from: raw).value == note)
    }

    // MARK: Preconditions

    @Test func aStaleUpdateFailsWithTheServersRecord() async throws {
        let account = try await KintoTestAccount()
        let original = try await account.create(BookDTO.self, try Book(id: "book-1", title: "Solaris", author: "Stanisław Lem"))
        // Someone else changes it first.
        var elsewhere = original.value
        try elsewhere.rename(to: "Solaris (2nd ed.)")
        let current = try await account.update(BookDTO.self, elsewhere, ifMatch: Int(original.lastModified))

        var mine = original.value
        mine.isFinished = true
        let error = await #expect(throws: APIError.self) { try await account.update(BookDTO.self, mine, ifMatch: Int(original.lastModified)) }
        guard case .preconditionFailed(let failure, let existing) = error else {
            Issue.record("expected preconditionFailed, got \(String(describing: error))")
            return
        }
        #expect(failure.status == 412)
        #expect(failure.serverError?.errno == 114)
        let server = try RecordDecoding.decode(BookDTO.self, from: try #require(existing))
        #expect(server == current)
    }

    @Test func creatingAnExistingIDFailsWithTheExistingRecord() async throws {
        let account = try await KintoTestAccount()
        let service = account.collection(.tasks)
        let first = try await service.create(id: "task-1", data: Data(#"{"title":"One","done":false}"#.utf8))
        let error = await #expect(throws: APIError.self) {
            try await service.create(id: "task-1", data: Data(#"{"title":"Two","done":false}"#.utf8))
        }
        guard case .preconditionFailed(_, let existing) = error else {
            Issue.record("expected preconditionFailed, got \(String(describing: error))")
            return
        }
        #expect(existing?.lastModified == first.lastModified)
        #expect(try existing?.fields()["title"] == .string("One"))
    }

    @Test func aStaleUpdateOfADeletedRecordHasNoExisting() async throws {
        let account = try await KintoTestAccount()
        let service = account.collection(.books)
        let record = try await service.create(id: "book-1", data: Data(#"{"title":"A","author_name":"B","finished":false}"#.utf8))
        _ = try await service.delete(id: "book-1", ifMatch: Int(record.lastModified))
        let error = await #expect(throws: APIError.self) {
            try await service.update(id: "book-1", data: Data(#"{"title":"A2"}"#.utf8), ifMatch: Int(record.lastModified))
        }
        guard case .preconditionFailed(_, let existing) = error else {
            Issue.record("expected preconditionFailed, got \(String(describing: error))")
            return
        }
        #expect(existing == nil)
    }

    // MARK: Deltas and paging

    @Test func sinceReturnsChangesAndTombstones() async throws {
        let account = try await KintoTestAccount()
        let service = account.collection(.books)
        let seeded = try await account.seedBooks(3)
        let cursor = try #require(seeded.map(\.lastModified).max())

        let tombstone = try await service.delete(id: "book-000", ifMatch: Int(seeded[0].lastModified))
        #expect(tombstone.isDeleted)
        let updated = try await service.update(
            id: "book-001", data: Data(#"{"title":"Book 1, revised","author_name":"Author 1","finished":true}"#.utf8),
            ifMatch: Int(seeded[1].lastModified))

        let page = try #require(try await service.firstPage(ListQuery(since: Int(cursor), sort: ["last_modified"])).page)
        #expect(page.records.map(\.id) == ["book-000", "book-001"])
        #expect(page.records.map(\.isDeleted) == [true, false])
        #expect(page.records.map(\.lastModified) == [tombstone.lastModified, updated.lastModified])
        #expect(page.next == .done)
        // A plain list hides the tombstone.
        #expect(try await service.allRecords().page?.records.map(\.id).sorted() == ["book-001", "book-002"])
    }

    @Test func followsNextPageAcrossThreePages() async throws {
        let account = try await KintoTestAccount()
        let service = account.collection(.books)
        let seeded = try await account.seedBooks(7)

        var pages: [RecordPage] = []
        let announced = CallLog<String>()
        var page = try #require(try await service.firstPage(ListQuery(limit: 3, sort: ["last_modified"]), onNextPage: { announced.record($0) }).page)
        pages.append(page)
        while let next = page.next.url {
            page = try await service.page(at: next, onNextPage: { announced.record($0) })
            pages.append(page)
        }
        #expect(pages.map(\.records.count) == [3, 3, 1])
        #expect(pages.flatMap(\.records).map(\.id) == seeded.map(\.id))
        // Each Next-Page was announced from the headers, before its page's body was read.
        #expect(announced.values == pages.compactMap(\.next.url))

        let all = try #require(try await service.allRecords(ListQuery(limit: 3)).page)
        #expect(Set(all.records.map(\.id)) == Set(seeded.map(\.id)))
        #expect(try await account.list(BookDTO.self, ListQuery(limit: 2)).count == 7)
    }

    @Test func ifNoneMatchAnswersNotModified() async throws {
        let account = try await KintoTestAccount()
        let service = account.collection(.books)
        _ = try await account.seedBooks(2)
        let page = try #require(try await service.firstPage().page)
        let etag = try #require(page.etag)

        guard case .notModified(let sameTag, _) = try await service.firstPage(ListQuery(ifNoneMatch: etag)) else {
            Issue.record("expected notModified")
            return
        }
        #expect(sameTag == etag)

        _ = try await service.create(id: "book-new", data: Data(#"{"title":"New","author_name":"A","finished":false}"#.utf8))
        let changed = try #require(try await service.firstPage(ListQuery(ifNoneMatch: etag)).page)
        #expect(changed.records.count == 3)
        #expect(changed.etag != etag)
    }

    // MARK: Batch

    @Test func batchBeyond25IsSplitAndKeepsOrder() async throws {
        let account = try await KintoTestAccount()
        let seeded = try await account.seedBooks(30)
        #expect(seeded.map(\.id) == (0..<30).map { String(format: "book-%03d", $0) })

        // A second batch mixes outcomes: updates, a stale update, a delete, a missing delete.
        let path = KintoCollectionPath(.books)
        var operations = try (0..<26).map { index in
            try KintoRequest.update(in: path, id: seeded[index].id, data: Data(#"{"title":"Revised \#(index)","author_name":"A","finished":true}"#.utf8), ifMatch: Int(seeded[index].lastModified))
        }
        operations.append(try KintoRequest.update(in: path, id: seeded[26].id, data: Data("{}".utf8), ifMatch: 1))
        operations.append(try KintoRequest.delete(in: path, id: seeded[27].id, ifMatch: Int(seeded[27].lastModified)))
        operations.append(try KintoRequest.delete(in: path, id: "book-missing", ifMatch: nil))
        let results = try await account.collection(.books).batch(operations)
        #expect(results.map(\.status) == Array(repeating: 200, count: 26) + [412, 200, 404])
        #expect(results[26].error?.existingRecord?.id == seeded[26].id)
        #expect(try results[27].record().isDeleted)

        let remaining = try #require(try await account.collection(.books).allRecords().page)
        #expect(remaining.records.count == 29)
    }

    // MARK: Authentication and permissions

    @Test func noCredentialsIsAnAuthenticationError() async throws {
        let account = try await KintoTestAccount()
        let service = KintoCollectionService(client: account.anonymousClient, collection: .books)
        let error = await #expect(throws: APIError.self) { try await service.firstPage() }
        guard case .unauthorized(let failure) = error else {
            Issue.record("expected unauthorized, got \(String(describing: error))")
            return
        }
        #expect(failure.status == 401)
        #expect("\(error!)".contains("authentication failed"))
    }

    @Test func withPlainBasicAuthAnotherPasswordIsAnotherAccount() async throws {
        // With plain Basic auth Kinto accepts any user:password; the pair names the account.
        let account = try await KintoTestAccount(server: try KintoServer.sharedPlain())
        _ = try await account.seedBooks(2)
        let otherPassword = APIClient(configuration: .init(
            baseURL: account.server.baseURL,
            credentials: .init(user: account.user.name, password: account.user.password + "-typo")))
        let page = try #require(try await KintoCollectionService(client: otherPassword, collection: .books).firstPage().page)
        #expect(page.records.isEmpty)
        #expect(try await account.collection(.books).firstPage().page?.records.count == 2)
    }

    @Test func withTheAccountsPluginAWrongPasswordIsRefused() async throws {
        let account = try await KintoTestAccount()
        let typo = APIClient(configuration: .init(
            baseURL: account.server.baseURL,
            credentials: .init(user: account.user.name, password: account.user.password + "-typo")))
        let error = await #expect(throws: APIError.self) {
            try await KintoCollectionService(client: typo, collection: .books).firstPage()
        }
        #expect(error?.status == 401)
        let info = try await KintoServerInfoService(client: typo).fetch()
        #expect(info.userID == nil)  // the root answers, but names no user
        #expect(try await KintoServerInfoService(client: account.client).fetch().userID == "account:\(account.user.name)")
    }

    @Test func writingTheCatalogIsAPermissionError() async throws {
        let account = try await KintoTestAccount()
        let catalog = account.collection(.products)
        let error = await #expect(throws: APIError.self) {
            try await catalog.update(id: "prod-001", data: Data(#"{"name":"Free","price_minor":0,"currency":"EUR"}"#.utf8), ifMatch: nil)
        }
        guard case .forbidden(let failure) = error else {
            Issue.record("expected forbidden, got \(String(describing: error))")
            return
        }
        #expect(failure.status == 403)
        #expect("\(error!)".contains("permission denied"))
    }

    @Test func theCatalogReadsAsProducts() async throws {
        let account = try await KintoTestAccount()
        let seed = try JSONDecoder().decode([ProductDTO].self, from: try FixtureFiles.data("seed/products.json"))
        let products = try await account.list(ProductDTO.self, ListQuery(limit: 7))
        #expect(Set(products.map(\.value.id)) == Set(seed.map(\.id)))
        let one = try RecordDecoding.decode(ProductDTO.self, from: try await account.collection(.products).record(id: seed[0].id))
        #expect(one.value == (try seed[0].toDomain()))
    }
}
