import Domain

// MARK: - RedactedURL

/// URLs as Services prints them: `URLRedaction`'s rules (no userinfo, no secret query
/// values), under the name every description and error here already uses.
enum RedactedURL {
    static func string(_ url: String) -> String {
        URLRedaction.redacted(url)
    }
}
