import Domain

// MARK: - ChangeScreen

/// What a write command did, as one sentence for people ("Added book b-42 (queued for
/// sync)") and, for scripts, the written object as JSON.
///
/// Changes to the reader's records are written to the local store and its outbox at
/// once; the sentence says they are queued, because the server has not seen them yet.
public struct ChangeScreen: RenderableScreen, Hashable {
    /// What was done, without where it goes next.
    public let done: String
    public let record: ChangedRecord
    /// Whether the change waits in the outbox for a sync.
    public let queued: Bool
    /// Whether there is an account to sync it with; a write to the local-only store is
    /// kept there, and saying "queued for sync" would promise a sync that cannot happen.
    public private(set) var hasServer = true

    init(_ message: String, _ record: ChangedRecord, queued: Bool) {
        done = message
        self.record = record
        self.queued = queued
    }

    /// The sentence: "Added book b-42 (queued for sync)", or without an account
    /// "Added book b-42 (saved locally; no account to sync it with)".
    public var message: String {
        guard queued else { return done }
        return hasServer ? "\(done) (queued for sync)" : "\(done) (saved locally; no account to sync it with)"
    }

    /// The same change, written where no account syncs it.
    public var withoutServer: ChangeScreen {
        var copy = self
        copy.hasServer = false
        return copy
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        text.line(message)
        return text.text
    }

    public func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
    }
}

// MARK: - Records

extension ChangeScreen {
    public enum Edit: String, Hashable, Sendable {
        case added = "Added", updated = "Updated"
    }

    public static func book(_ edit: Edit, _ book: Book) -> ChangeScreen {
        ChangeScreen("\(edit.rawValue) book \(book.id)", .book(BookView(book)), queued: true)
    }

    /// "Marked book b-1 finished" or "… not finished", as `book.isFinished` says.
    public static func bookFinished(_ book: Book) -> ChangeScreen {
        ChangeScreen("Marked book \(book.id) \(book.isFinished ? "finished" : "not finished")", .book(BookView(book)), queued: true)
    }

    public static func note(_ edit: Edit, _ note: Note) -> ChangeScreen {
        ChangeScreen("\(edit.rawValue) note \(note.id)", .note(NoteView(note)), queued: true)
    }

    public static func task(_ edit: Edit, _ task: ReadingTask) -> ChangeScreen {
        ChangeScreen("\(edit.rawValue) task \(task.id)", .task(TaskView(task)), queued: true)
    }

    /// "Marked task t-1 done" or "… not done", as `task.isDone` says.
    public static func taskDone(_ task: ReadingTask) -> ChangeScreen {
        ChangeScreen("Marked task \(task.id) \(task.isDone ? "done" : "not done")", .task(TaskView(task)), queued: true)
    }

    /// A book, note or task removed locally.
    public static func removed(_ collection: CollectionName, id: String) -> ChangeScreen {
        ChangeScreen("Removed \(Wording.noun(collection)) \(id)", .removed(collection: collection.rawValue, id: id), queued: true)
    }

    /// "Put 2 × prod-1 in the cart".
    public static func putInCart(_ item: CartItem) -> ChangeScreen {
        ChangeScreen("Put \(item.quantity) × \(item.productID) in the cart", .cartItem(CartItemView(item)), queued: true)
    }

    /// `added` more of a product; the item holds the quantity the cart has now.
    public static func addedToCart(_ item: CartItem, added: Int) -> ChangeScreen {
        let message = item.quantity == added
            ? "Put \(item.quantity) × \(item.productID) in the cart"
            : "Added \(added) × \(item.productID) to the cart, \(item.quantity) in all"
        return ChangeScreen(message, .cartItem(CartItemView(item)), queued: true)
    }

    public static func takenOutOfCart(productID: Product.ID) -> ChangeScreen {
        ChangeScreen("Took \(productID) out of the cart", .removed(collection: CollectionName.cart.rawValue, id: productID), queued: true)
    }

    /// Favorites sync (the `preferences` collection): the change is queued.
    /// - Parameter changed: false when the book already was as asked (`favorite add` of a
    ///   favorite): nothing is queued, and the line says so.
    public static func favorite(_ id: Book.ID, isFavorite: Bool, changed: Bool = true) -> ChangeScreen {
        guard changed else {
            return ChangeScreen(
                isFavorite ? "Book \(id) is a favorite already; nothing changed" : "Book \(id) is not a favorite; nothing changed",
                .favorite(id: id, isFavorite: isFavorite), queued: false)
        }
        return ChangeScreen(
            isFavorite ? "Book \(id) is now a favorite" : "Book \(id) is no longer a favorite",
            .favorite(id: id, isFavorite: isFavorite), queued: true)
    }

    /// "Logged 25 minutes on 2026-12-01 with book b-1".
    public static func readingLogged(_ session: ReadingSession) -> ChangeScreen {
        let book = session.bookID.map { " with book \($0)" } ?? ""
        return ChangeScreen(
            "Logged \(Wording.count(session.minutes, "minute")) on \(session.day)\(book)", .readingSession(ReadingSessionView(session)),
            queued: true)
    }

    /// A book removed with what referred to it.
    public static func bookRemoved(_ removal: BookRemovalResult) -> ChangeScreen {
        var parts: [String] = []
        if removal.notesRemoved > 0 { parts.append("removed \(Wording.count(removal.notesRemoved, "note"))") }
        if removal.sessionsRemoved > 0 { parts.append("removed \(Wording.count(removal.sessionsRemoved, "reading session"))") }
        if removal.notesDetached > 0 { parts.append("kept \(Wording.count(removal.notesDetached, "note")) without a book") }
        if removal.sessionsDetached > 0 { parts.append("kept \(Wording.count(removal.sessionsDetached, "reading session")) without a book") }
        if removal.favoriteRemoved { parts.append("removed its favorite") }
        let details = parts.isEmpty ? "" : "; " + parts.joined(separator: ", ")
        return ChangeScreen("Removed book \(removal.bookID)\(details)", .bookRemoved(removal), queued: true)
    }
}

// MARK: - Sync decisions

extension ChangeScreen {
    /// A conflict settled with `shelf resolve`.
    public static func resolved(_ collection: CollectionName, id: String, keptLocal: Bool) -> ChangeScreen {
        let message = keptLocal
            ? "Kept the local version of \(collection.rawValue)/\(id); it is sent on the next sync"
            : "Kept the server's version of \(collection.rawValue)/\(id)"
        return ChangeScreen(message, .resolution(collection: collection.rawValue, id: id, kept: keptLocal ? "local" : "remote"), queued: false)
    }

    /// A refused change queued again with `shelf retry`.
    public static func retried(failedChange id: Int64) -> ChangeScreen {
        ChangeScreen("Queued failed change \(id) again; it is sent on the next sync", .failedChange(id: id, action: "retried"), queued: false)
    }

    /// A refused change dropped with `shelf discard`.
    public static func discarded(failedChange id: Int64) -> ChangeScreen {
        ChangeScreen("Dropped failed change \(id); the record stays as the server has it", .failedChange(id: id, action: "discarded"), queued: false)
    }
}

// MARK: - Accounts

extension ChangeScreen {
    public static func accountAdded(_ account: AccountsScreen.Entry) -> ChangeScreen {
        let current = account.isCurrent ? "; it is the current account" : "; 'shelf account use \(account.name)' makes it the current one"
        return ChangeScreen("Added account \(account.name) (\(account.user) @ \(account.server))\(current)", .account(account), queued: false)
    }

    /// Work done before any account existed now belongs to this one and syncs with it.
    public static func localWorkAdopted(account: String, records: Int, pendingChanges: Int) -> ChangeScreen {
        ChangeScreen(
            "Moved the local-only store (\(records) record\(records == 1 ? "" : "s"), \(pendingChanges) unsynced change\(pendingChanges == 1 ? "" : "s")) to account \(account); 'shelf sync' sends them",
            .adoptedLocalWork(account: account, records: records, pendingChanges: pendingChanges), queued: false)
    }

    public static func accountUsed(_ account: AccountsScreen.Entry) -> ChangeScreen {
        ChangeScreen("Account \(account.name) is now the current account", .account(account), queued: false)
    }

    /// The account's local store is kept: removing an account forgets how to reach the
    /// server, not the reader's data.
    public static func accountRemoved(_ name: String, store: String) -> ChangeScreen {
        ChangeScreen("Removed account \(name); its local store is kept at \(store)", .removedAccount(name: name, store: store), queued: false)
    }

    /// "Changed the password of account home (checked with the server; kept in …)".
    public static func accountPasswordChanged(_ name: String, user: String, server: String, kept: String, verified: Bool) -> ChangeScreen {
        let checked = verified ? "the server accepted it" : "not checked with the server"
        return ChangeScreen(
            "Changed the password of account \(name) (\(user) @ \(server); \(checked); kept \(kept))",
            .account(AccountsScreen.Entry(name: name, user: user, server: server, isCurrent: false)), queued: false)
    }
}

// MARK: - ChangedRecord

/// The JSON of a change: the written object with the Domain's field names, or what
/// was removed or decided.
public enum ChangedRecord: Hashable, Sendable, Encodable {
    case book(BookView)
    case note(NoteView)
    case task(TaskView)
    case cartItem(CartItemView)
    /// `{"collection": "books", "deleted": true, "id": "b-1"}`
    case removed(collection: String, id: String)
    case favorite(id: String, isFavorite: Bool)
    case readingSession(ReadingSessionView)
    /// `{"collection": "books", "id", "deleted": true, "notesRemoved", "notesDetached",
    /// "sessionsRemoved", "sessionsDetached", "favoriteRemoved"}`
    case bookRemoved(BookRemovalResult)
    case resolution(collection: String, id: String, kept: String)
    case failedChange(id: Int64, action: String)
    case account(AccountsScreen.Entry)
    case removedAccount(name: String, store: String)
    /// `{"name": "work", "adoptedRecords": 12, "adoptedChanges": 12}`
    case adoptedLocalWork(account: String, records: Int, pendingChanges: Int)

    private enum CodingKeys: String, CodingKey {
        case collection, deleted, id, isFavorite, kept, action, name, store, adoptedRecords, adoptedChanges
        case notesRemoved, notesDetached, sessionsRemoved, sessionsDetached, favoriteRemoved
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .book(let view): try view.encode(to: encoder)
        case .note(let view): try view.encode(to: encoder)
        case .task(let view): try view.encode(to: encoder)
        case .cartItem(let view): try view.encode(to: encoder)
        case .account(let entry): try entry.encode(to: encoder)
        case .readingSession(let view): try view.encode(to: encoder)
        case .bookRemoved(let result):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(CollectionName.books.rawValue, forKey: .collection)
            try container.encode(result.bookID, forKey: .id)
            try container.encode(true, forKey: .deleted)
            try container.encode(result.notesRemoved, forKey: .notesRemoved)
            try container.encode(result.notesDetached, forKey: .notesDetached)
            try container.encode(result.sessionsRemoved, forKey: .sessionsRemoved)
            try container.encode(result.sessionsDetached, forKey: .sessionsDetached)
            try container.encode(result.favoriteRemoved, forKey: .favoriteRemoved)
        case .removed(let collection, let id):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(collection, forKey: .collection)
            try container.encode(id, forKey: .id)
            try container.encode(true, forKey: .deleted)
        case .favorite(let id, let isFavorite):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(isFavorite, forKey: .isFavorite)
        case .resolution(let collection, let id, let kept):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(collection, forKey: .collection)
            try container.encode(id, forKey: .id)
            try container.encode(kept, forKey: .kept)
        case .failedChange(let id, let action):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(action, forKey: .action)
        case .removedAccount(let name, let store):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(true, forKey: .deleted)
            try container.encode(store, forKey: .store)
        case .adoptedLocalWork(let account, let records, let pendingChanges):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(account, forKey: .name)
            try container.encode(records, forKey: .adoptedRecords)
            try container.encode(pendingChanges, forKey: .adoptedChanges)
        }
    }
}
