// MARK: - ValueSuggestion

/// The word a mistyped value most likely meant, for "did you mean …?" in usage errors.
public enum ValueSuggestion {
    /// The candidate closest to `word` by edit distance (insertions, deletions,
    /// substitutions and swaps of two neighbours, case ignored), when it is close enough to be a typo: at most a third
    /// of the word's length, and at least one edit. Ties go to the earlier candidate.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.lowercased())
        let allowed = max(1, typed.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance <= allowed, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// Edit distance with swaps of neighbours (optimal string alignment: "dnoe" is one
    /// edit from "done"). Words here are option values, a few dozen characters at most;
    /// longer input is compared on its first 64 characters.
    static func editDistance(_ lhs: [Character], _ rhs: [Character]) -> Int {
        let lhs = Array(lhs.prefix(64)), rhs = Array(rhs.prefix(64))
        var before = [Int](), previous = Array(0...rhs.count)
        for i in lhs.indices {
            var current = [i + 1] + Array(repeating: 0, count: rhs.count)
            for j in rhs.indices {
                var best = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (lhs[i] == rhs[j] ? 0 : 1))
                if i > 0, j > 0, lhs[i] == rhs[j - 1], lhs[i - 1] == rhs[j] { best = min(best, before[j - 1] + 1) }
                current[j + 1] = best
            }
            before = previous
            previous = current
        }
        return previous[rhs.count]
    }
}
