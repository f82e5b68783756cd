// MARK: - ValueSuggestion

/// The word a mistyped value most likely meant, for "did you mean …?" in usage errors.
public enum ValueSuggestion {
    /// The candidate closest to `word` by edit distance (insertions, deletions,
    /// substitutions, case ignored), when it is close enough to be a typo: at most a third
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

    /// Levenshtein distance, one row at a time. Words here are option values, a few
    /// dozen characters at most; longer input is compared on its first 64 characters.
    static func editDistance(_ lhs: [Character], _ rhs: [Character]) -> Int {
        let lhs = lhs.prefix(64), rhs = Array(rhs.prefix(64))
        var previous = Array(0...rhs.count)
        for (i, left) in lhs.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: rhs.count)
            for (j, right) in rhs.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
            }
            previous = current
        }
        return previous[rhs.count]
    }
}
