// MARK: - Suggestions

/// "Did you mean …?" for a mistyped command or option: the candidates closest to the
/// word by Damerau–Levenshtein distance (optimal string alignment: insertions,
/// deletions, substitutions and swaps of two neighbours each cost one), within a
/// threshold that grows with the word, so `boks` finds `books` but `lend` finds nothing
/// among `show, add, edit`.
public enum Suggestions {
    /// The candidates at the smallest distance from `word`, at most three, in the order
    /// given; empty when none is close enough. Case is ignored, and leading dashes count
    /// toward neither the distance nor the threshold.
    public static func closest(to word: String, among candidates: [String]) -> [String] {
        let typed = bare(word)
        guard !typed.isEmpty else { return [] }
        let limit = threshold(forLength: typed.count)
        var best = Int.max
        var found: [String] = []
        for candidate in candidates {
            let distance = self.distance(typed, bare(candidate))
            guard distance <= limit else { continue }
            if distance < best {
                best = distance
                found = [candidate]
            } else if distance == best, !found.contains(candidate) {
                found.append(candidate)
            }
        }
        return Array(found.prefix(3))
    }

    /// The largest distance still worth suggesting for a word of `length` characters:
    /// one edit for words of up to three, two up to six, three beyond.
    static func threshold(forLength length: Int) -> Int {
        switch length {
        case ...3: 1
        case ...6: 2
        default: 3
        }
    }

    /// The optimal-string-alignment distance between two words.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // NB: three rows suffice: a swap looks back two rows.
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, before[j - 2] + 1)
                }
                current[j] = value
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }

    private static func bare(_ word: String) -> [Character] {
        Array(word.drop { $0 == "-" }.lowercased())
    }

    /// `'books'`, `'book' or 'books'`, `'a', 'b' or 'c'`.
    static func phrase(_ words: [String]) -> String {
        let quoted = words.map { "'\($0)'" }
        guard quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted[quoted.count - 1]
    }
}
