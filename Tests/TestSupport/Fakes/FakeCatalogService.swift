import Domain

// MARK: - FakeCatalogService

/// A read-only `CatalogService` over in-memory products, scripted like `FakeBookService`.
public actor FakeCatalogService: CatalogService {
    public private(set) var catalog: [Product]
    public private(set) var loadCount = 0

    private var loadReplies = ReplyQueue<[Product]>()

    public init(products: [Product] = []) {
        catalog = products
    }

    public func enqueueLoad(_ reply: FakeReply<[Product]>) {
        loadReplies.enqueue(reply)
    }

    public func products(forceRefresh: Bool) async throws -> [Product] {
        loadCount += 1
        if let reply = loadReplies.next() { return try await reply.resolve() }
        return catalog
    }
}
