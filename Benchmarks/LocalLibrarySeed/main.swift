import BenchmarkSupport
import Domain
import Foundation
import Records
import Storage

// MARK: - LocalLibrarySeed
//
// Fills the local store `shelf` opens with a large library, for timing the CLI's local
// reads (`shelf books --search`) without a server:
//
//     swift run -c release LocalLibrarySeed DATA_HOME [COUNT] [--account NAME]
//     XDG_DATA_HOME=DATA_HOME XDG_CONFIG_HOME=... hyperfine -N '.build/release/shelf books --search ursula'
//
// writes COUNT (default 100,000) books into `DATA_HOME/shelf/<NAME>.sqlite` (default the
// local-only store, `local`) as a first pull would: one transaction of server records.
// The books follow Benchmarks/seeding.py: about 300 bytes each, fifty authors (so
// "ursula" matches about 2%), 40% finished, deterministic (fixed seed).

let authors = [
    "Ursula K. Le Guin", "Frank Herbert", "Gabriel García Márquez", "Albert Camus", "Toni Morrison",
    "Chimamanda Ngozi Adichie", "Kazuo Ishiguro", "Haruki Murakami", "Virginia Woolf", "George Eliot",
    "Fyodor Dostoevsky", "Leo Tolstoy", "Jane Austen", "Charlotte Brontë", "Thomas Mann",
    "Franz Kafka", "Italo Calvino", "Umberto Eco", "Stanisław Lem", "Octavia E. Butler",
    "Isabel Allende", "Jorge Luis Borges", "Julio Cortázar", "Clarice Lispector", "Naguib Mahfouz",
    "Orhan Pamuk", "Wisława Szymborska", "Olga Tokarczuk", "Elena Ferrante", "Marguerite Yourcenar",
    "Victor Hugo", "Émile Zola", "Gustave Flaubert", "Marcel Proust", "Simone de Beauvoir",
    "James Baldwin", "Zadie Smith", "Margaret Atwood", "Alice Munro", "Hilary Mantel",
    "Murasaki Shikibu", "Yasunari Kawabata", "Ngũgĩ wa Thiong'o", "Chinua Achebe", "Wole Soyinka",
    "Selma Lagerlöf", "Halldór Laxness", "Knut Hamsun", "Tove Jansson", "Astrid Lindgren",
]
let adjectives = ["Silent", "Hidden", "Last", "Burning", "Distant", "Broken", "Golden", "Quiet", "Endless",
                  "Forgotten", "Winter", "Northern", "Secret", "Wandering", "Painted", "Hollow", "Bright"]
let nouns = ["River", "Garden", "Mountain", "Lighthouse", "Archive", "Harbour", "Orchard", "Library", "City",
             "Island", "Forest", "Bridge", "Season", "Letter", "Mirror", "Kingdom", "Station", "Voyage"]
let description = "A novel about memory exile and the small rituals that hold a family together across three generations told through letters recipes and a map drawn by hand in the margins of an old atlas."

/// A JSON string literal's contents.
func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
}

func book(_ index: Int, using generator: inout SeededGenerator) -> RawRecord {
    // NB: the force unwraps are safe: the word lists are non-empty literals.
    let adjective = adjectives.randomElement(using: &generator)!
    let noun = nouns.randomElement(using: &generator)!
    let title = "The \(adjective) \(noun), Volume \(index % 9 + 1)"
    let author = authors.randomElement(using: &generator)!
    let finished = Double.random(in: 0..<1, using: &generator) < 0.4
    let id = "book-\(index)"
    let lastModified = 1_700_000_000_000 + Int64(index)
    let json = #"{"id":"\#(id)","title":"\#(escaped(title))","author_name":"\#(escaped(author))","finished":\#(finished),"description":"\#(description)","last_modified":\#(lastModified)}"#
    return RawRecord(id: id, lastModified: lastModified, json: Data(json.utf8))
}

func run() throws {
    var arguments = Array(CommandLine.arguments.dropFirst())
    var account = AccountName.localOnly
    if let flag = arguments.firstIndex(of: "--account"), flag + 1 < arguments.count {
        account = try AccountName(arguments[flag + 1])
        arguments.removeSubrange(flag...(flag + 1))
    }
    guard let dataHome = arguments.first, dataHome.hasPrefix("/") else {
        FileHandle.standardError.write(Data("usage: LocalLibrarySeed /absolute/DATA_HOME [COUNT] [--account NAME]\n".utf8))
        exit(64)
    }
    let count = arguments.dropFirst().compactMap(Int.init).first ?? 100_000

    let store = try ShelfStore(account: account, paths: ShelfPaths(environment: ["XDG_DATA_HOME": dataHome]))
    var generator = SeededGenerator(state: 42)
    let records = (0..<count).map { book($0, using: &generator) }
    let start = ContinuousClock.now
    try store.write { tx in
        try tx.storePulled(records, in: .books)
    }
    let elapsed = ContinuousClock.now - start
    print("LocalLibrarySeed: \(count) books in \(store.location) (\(elapsed.formatted(.units(allowed: [.seconds, .milliseconds]))))")
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("LocalLibrarySeed: \(error)\n".utf8))
    exit(1)
}
