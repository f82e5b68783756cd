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
    /// edit from "done"), the one `Suggestions` measures commands and options with.
    /// Words here are option values, a few dozen characters at most; longer input is
    /// compared on its first 64 characters.
    static func editDistance(_ lhs: [Character], _ rhs: [Character]) -> Int {
        Suggestions.distance(Array(lhs.prefix(64)), Array(rhs.prefix(64)))
    }
}
