import BenchmarkSupport
import Domain
import Repositories
import Storage

// MARK: - Short ids and references

/// What short ids and typed references cost at `count` books: the prefixes a page, a
/// search's matches and the whole library show (two index lookups per id, or one
/// ordered pass over every id), and resolving a prefix or a title.
func benchLookup(_ store: ShelfStore, count: Int) async throws {
    let lookup = RecordLookupRepository(store: store)
    let ids = (0..<count).map { "book-\($0)" }

    let (page, pageShown) = try await median { try await lookup.shortIDs(Array(ids.prefix(20)), in: .books) }
    report("short ids of a page of 20 (index lookups)", page, "\(pageShown.count) ids")

    let matches = Array(ids.prefix(2_000))
    let (search, searchShown) = try await median { try await lookup.shortIDs(matches, in: .books) }
    report("short ids of 2,000 matches (index lookups)", search, "\(searchShown.count) ids")

    let (allIDs, every) = try median(runs: 3) { try store.read { reader in try reader.allIDs(.books) } }
    report("read every id in id order", allIDs, "\(every.count) ids")

    let (bulk, bulkShown) = try await median(runs: 3) { try await lookup.shortIDs(ids, in: .books) }
    report("short ids of all \(count) (one ordered pass)", bulk, "\(bulkShown.count) ids")

    // NB: chunks under `bulkThreshold` take the lookup path: what every id would cost that way.
    let chunk = RecordLookupRepository.bulkThreshold
    let (perRow, perRowShown) = try await median(runs: 3) {
        var shown: [String: String] = [:]
        for start in stride(from: 0, to: ids.count, by: chunk) {
            shown.merge(try await lookup.shortIDs(Array(ids[start..<min(start + chunk, ids.count)]), in: .books)) { a, _ in a }
        }
        return shown
    }
    report("short ids of all \(count) (index lookups)", perRow, "\(perRowShown.count) ids, same: \(perRowShown == bulkShown)")

    let (prefix, found) = try await median { try await lookup.resolve("book-4242", in: .books) }
    report("resolve the full id 'book-4242'", prefix, found)
    let (unique, uniqueFound) = try await median { try await lookup.resolve("book-99999", in: .books) }
    report("resolve 'book-99999' (exact, or prefix)", unique, uniqueFound)
    let (ambiguous, _) = await median { try? await lookup.resolve("book-4", in: .books) }
    report("refuse the ambiguous prefix 'book-4' (range counted)", ambiguous)
    let (title, _) = await median { try? await lookup.resolve("no such title", in: .books) }
    report("a title that matches nothing (one scan)", title)
}
