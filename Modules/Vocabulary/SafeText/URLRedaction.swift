// MARK: - URLRedaction

/// URLs as Shelf prints them — in errors, logs, reports and `--verbose` notes — with
/// their secrets taken out: the `user:password@` part, and the values of query
/// parameters whose names say they carry a secret (`token`, `password`, `key`…).
///
/// Shelf sends credentials in an `Authorization` header, but a URL typed by a person or
/// handed out by a server may still carry some; every URL that reaches output goes
/// through here, the one place that knows what to hide.
public enum URLRedaction {
    /// What replaces a hidden part.
    public static let mask = "<redacted>"

    /// `url` without userinfo, and with secret-looking query values masked.
    public static func redacted(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return redactingQuery(url) }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var result = String(url[..<schemeEnd.upperBound])
        if let at = rest[..<authorityEnd].lastIndex(of: "@") {
            result += String(rest[rest.index(after: at)...])
        } else {
            result += String(rest)
        }
        return redactingQuery(result)
    }

    /// Whether `url` carries a `user[:password]@` part.
    public static func hasUserInfo(_ url: String) -> Bool {
        guard let schemeEnd = url.range(of: "://") else { return false }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        return rest[..<authorityEnd].contains("@")
    }

    /// Query parameter names (lower-cased) whose values are secrets, matched as
    /// substrings: `access_token`, `_token`, `api_key`, `X-Amz-Signature`…
    static let secretNameParts = ["token", "password", "passwd", "secret", "key", "auth", "signature", "session", "credential"]

    private static func redactingQuery(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let fragmentStart = url[question...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: question)..<fragmentStart]
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> String in
            guard let equals = parameter.firstIndex(of: "=") else { return String(parameter) }
            let name = parameter[..<equals].lowercased()
            guard secretNameParts.contains(where: { name.contains($0) }) else { return String(parameter) }
            return String(parameter[...equals]) + mask
        }
        return String(url[...question]) + parameters.joined(separator: "&") + String(url[fragmentStart...])
    }
}
