import Vocabulary

// MARK: - RedactedURL

/// URLs as Services prints them: `URLRedaction`'s rules (no userinfo, no secret query
/// values), under the name every description and error already uses.
public enum RedactedURL {
    public static func string(_ url: String) -> String {
        URLRedaction.redacted(url)
    }
}
