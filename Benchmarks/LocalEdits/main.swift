import Domain
import Foundation
import RecordDTOs
import Records
import Services
import Storage

// MARK: - shelf-bench-local-edits
//
// Leaves books waiting to be pushed, the way the CLI's writes do, for the push
// benchmark (`make bench`, scenario 4):
//
//     shelf-bench-local-edits BOOKS.json
//
// BOOKS.json is a JSON list of books in the wire shape (`id`, `title`, `author_name`,
// `finished`, any other fields such as `description`). An item may name another of the
// reader's collections in `_collection` (`notes`, `tasks`, `sessions`…): it is saved there
// as it is (without `_collection`), for the push of edits spread over several collections. The account is the one `shelf`
// would use (SHELF_SERVER/SHELF_USER/SHELF_PASSWORD, or the current account, else the
// local-only store); its store is opened with `ShelfStore` and every book goes through
// the call `shelf book add` ends in — `StoreTransaction.saveLocal`, which writes the
// record and queues its `create` in the outbox — after the Domain's checks (`Book`:
// trimmed, non-empty title and author). All of them in one transaction: preparing
// 1,000 edits takes a fraction of a second instead of 1,000 process starts. The
// `shelf-sync` run that follows pushes them.

struct LocalEditsError: Error, CustomStringConvertible {
    var description: String
}

/// One record's collection and wire JSON; a book is checked by the Domain as a new book
/// from the CLI would be.
func localEdit(_ object: [String: Any]) throws -> (collection: CollectionName, id: String, json: Data) {
    guard let name = object["_collection"] as? String else {
        let book = try checkedRecord(object)
        return (.books, book.id, book.json)
    }
    guard let collection = CollectionName(rawValue: name), !collection.isReadOnly else {
        throw LocalEditsError(description: "'\(name)' is not a collection of the reader's own")
    }
    var record = object
    record["_collection"] = nil
    guard let id = record["id"] as? String else { throw LocalEditsError(description: "a record needs a string id") }
    return (collection, id, try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes]))
}

/// One book's wire JSON, checked by the Domain as a new book from the CLI would be.
func checkedRecord(_ object: [String: Any]) throws -> (id: String, json: Data) {
    guard let id = object["id"] as? String, let title = object["title"] as? String,
          let author = object["author_name"] as? String
    else { throw LocalEditsError(description: "a book needs a string id, title and author_name") }
    let book = try Book(id: id, title: title, author: author, isFinished: object["finished"] as? Bool ?? false)
    // The Domain's values over the given record: other fields (a description) travel as they are.
    var record = object
    let dto = BookDTO(book)
    record["title"] = dto.title
    record["author_name"] = dto.authorName
    record["finished"] = dto.finished
    return (id, try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes]))
}

func run() throws {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard arguments.count == 1 else { throw LocalEditsError(description: "usage: shelf-bench-local-edits BOOKS.json") }
    let list = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: arguments[0])))
    guard let objects = list as? [[String: Any]] else { throw LocalEditsError(description: "expected a JSON list of books") }
    let records = try objects.map(localEdit)

    let environment = ProcessInfo.processInfo.environment
    let paths = ShelfPaths(environment: environment)
    let store: ShelfStore
    switch try AccountResolver.resolve(flag: nil, environment: environment, store: AccountStore(paths: paths)) {
    case .account(let account):
        store = try ShelfStore(account: account.name, paths: paths)
    case .localOnly:
        store = try ShelfStore(account: .localOnly, paths: paths)
    }
    let waiting = try store.write { tx in
        for (collection, id, json) in records {
            try tx.saveLocal(collection, id: id, json: json)
        }
        return try tx.pendingCount()
    }
    print("shelf-bench-local-edits: \(records.count) records saved in \(store.location); \(waiting) changes waiting")
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("shelf-bench-local-edits: \(error)\n".utf8))
    exit(1)
}
