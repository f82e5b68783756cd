// MARK: - Precondition

/// A conditional request: the server applies it only when the resource is (or is not)
/// at a known version, answering 412 (writes) or 304 (reads) otherwise.
public enum Precondition: Sendable, Hashable {
    /// `If-Match: "<tag>"`: write only if nobody changed it since that version.
    case ifMatch(ETag)
    /// `If-None-Match: "<tag>"`: read only if it changed since that version (else 304).
    case ifNoneMatch(ETag)
    /// `If-None-Match: *`: create only if it does not exist yet.
    case ifNoneMatchAny

    /// `If-Match` for a record last seen at `lastModified`.
    public static func ifMatch(lastModified: Int) -> Precondition { .ifMatch(ETag(timestamp: lastModified)) }

    var header: (name: String, value: String) {
        switch self {
        case .ifMatch(let tag): ("If-Match", tag.headerValue)
        case .ifNoneMatch(let tag): ("If-None-Match", tag.headerValue)
        case .ifNoneMatchAny: ("If-None-Match", "*")
        }
    }
}
