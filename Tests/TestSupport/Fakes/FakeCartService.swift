import Domain

// MARK: - FakeCartService

/// A `CartService` over in-memory cart lines, scripted like `FakeBookService`.
public actor FakeCartService: CartService {
    public private(set) var items: [CartItem]
    public private(set) var loadCount = 0
    /// Every write, in order: "set <quantity> <productID>", "remove <productID>".
    public private(set) var writes: [String] = []

    private var loadReplies = ReplyQueue<[CartItem]>()
    private var writeReplies = ReplyQueue<Void>()

    public init(items: [CartItem] = []) {
        self.items = items
    }

    public func enqueueLoad(_ reply: FakeReply<[CartItem]>) {
        loadReplies.enqueue(reply)
    }

    public func enqueueWrite(_ reply: FakeReply<Void>) {
        writeReplies.enqueue(reply)
    }

    // MARK: CartService

    public func cartItems() async throws -> [CartItem] {
        loadCount += 1
        if let reply = loadReplies.next() { return try await reply.resolve() }
        return items
    }

    public func setQuantity(_ quantity: Int, of productID: Product.ID) async throws -> CartItem {
        writes.append("set \(quantity) \(productID)")
        try await writeReplies.next()?.resolve()
        let item = try CartItem(productID: productID, quantity: quantity)
        if let index = items.firstIndex(where: { $0.productID == productID }) {
            items[index] = item
        } else {
            items.append(item)
        }
        return item
    }

    public func removeFromCart(productID: Product.ID) async throws {
        writes.append("remove \(productID)")
        try await writeReplies.next()?.resolve()
        items.removeAll { $0.productID == productID }
    }
}
