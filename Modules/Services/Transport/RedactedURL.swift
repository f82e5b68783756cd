// MARK: - RedactedURL

/// URLs as Shelf prints them: without a `user:password@` part, should one ever be given.
///
/// Shelf sends credentials in an `Authorization` header, but a base URL typed by a user
/// may still carry them; every error and description goes through this.
public enum RedactedURL {
    public static func string(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<schemeEnd.upperBound]) + String(rest[rest.index(after: at)...])
    }
}
