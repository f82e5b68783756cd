import Foundation
import Records
import Storage

// MARK: - Sample books
//
// The books the in-process benchmarks store: generated deterministically (fixed seed)
// in the Kinto wire shape, non-ASCII text escaped as \uXXXX the way Kinto sends it, and
// a `description` field Shelf does not know that brings each record to ~300 bytes.

/// SplitMix64: a small deterministic generator, so every run stores the same records.
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64

    public init(state: UInt64) {
        self.state = state
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let titleWords = ["Dune", "Shadow", "River", "Café", "Night", "Garden", "Winter", "Mirror", "Soledad", "Étranger",
                  "House", "Ocean", "Letters", "Müller", "Crown", "Island", "Silence", "Fire", "Años", "Stone",
                  "Memory", "Empire", "Forest", "Łódź", "Journey", "Light", "Glass", "Song", "Señor", "Tower"]
let firstNames = ["Ursula", "Gabriel", "Émile", "Haruki", "Jane", "Fyodor", "Toni", "José", "Stanisław", "Chinua",
                  "Hilary", "Jorge", "Zoë", "Kazuo", "Françoise", "Søren", "Italo", "Olga", "Ngũgĩ", "Wisława"]
let lastNames = ["Le Guin", "García Márquez", "Zola", "Murakami", "Austen", "Dostoevsky", "Morrison", "Saramago",
                 "Lem", "Achebe", "Mantel", "Borges", "Smith", "Ishiguro", "Sagan", "Kierkegaard", "Calvino",
                 "Tokarczuk", "wa Thiong'o", "Szymborska"]
let filler = ["a", "quiet", "story", "about", "time", "and", "loss", "told", "with", "wit", "across", "three",
              "generations", "of", "one", "family", "in", "the", "north"]

/// JSON string contents as Kinto writes them: ASCII, with \uXXXX (and surrogate pairs).
public func kintoEscaped(_ text: String) -> String {
    var out = ""
    for unit in text.utf16 {
        switch unit {
        case 0x22: out += "\\\""
        case 0x5C: out += "\\\\"
        case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
        default: out += String(format: "\\u%04x", unit)
        }
    }
    return out
}

public func makeBook(_ index: Int, using generator: inout SeededGenerator) -> RawRecord {
    let words = (0..<Int.random(in: 2...5, using: &generator)).map { _ in titleWords.randomElement(using: &generator)! }
    // NB: force unwraps are safe: the word lists are non-empty literals.
    let title = words.joined(separator: " ")
    let author = "\(firstNames.randomElement(using: &generator)!) \(lastNames.randomElement(using: &generator)!)"
    let description = (0..<Int.random(in: 22...30, using: &generator)).map { _ in filler.randomElement(using: &generator)! }.joined(separator: " ")
    let id = "book-\(index)"
    let lastModified = Int64(1_700_000_000_000 + index)
    let finished = Bool.random(using: &generator)
    let json = #"{"id":"\#(id)","title":"\#(kintoEscaped(title))","author_name":"\#(kintoEscaped(author))","finished":\#(finished),"description":"\#(description)","last_modified":\#(lastModified)}"#
    return RawRecord(id: id, lastModified: lastModified, json: Data(json.utf8))
}
