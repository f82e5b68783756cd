import Domain
import Foundation
import RecordDTOs

// MARK: - CachedResult

/// A repository's answer: the data it has, and how current it is.
///
/// Offline first: a refresh that fails never takes data away. The reader sees what the
/// local store holds, together with `refreshError` to say it may be out of date.
public struct CachedResult<Value: Sendable>: Sendable {
    /// The data, read from the account's local store (or its in-memory copy).
    public var value: Value
    /// The last successful refresh of the collection (by this repository or by the sync
    /// engine in any process); nil when it has never been refreshed.
    public var fetchedAt: Date?
    /// Older than the policy's `maxAge` (or never refreshed) when it was served.
    public var isStale: Bool
    /// Why the latest refresh failed, when it did; cleared by the next success.
    public var refreshError: (any Error)?
    /// Records in the store that could not be read as Domain values (a field missing,
    /// or a value a Domain rule refuses — written by another client). They are left
    /// out of `value` but reported here, never dropped without a word.
    public var unreadable: [UnreadableRecord]
    /// Whether there is anything to show: the collection was refreshed at least once,
    /// or the store holds records of it (created offline, or pulled by another process).
    public var hasCachedData: Bool

    public init(
        value: Value, fetchedAt: Date?, isStale: Bool, refreshError: (any Error)? = nil,
        unreadable: [UnreadableRecord] = [], hasCachedData: Bool
    ) {
        self.value = value
        self.fetchedAt = fetchedAt
        self.isStale = isStale
        self.refreshError = refreshError
        self.unreadable = unreadable
        self.hasCachedData = hasCachedData
    }

    /// The value, unless a refresh failed and there was nothing cached to fall back on.
    ///
    /// What the Domain ports return: they can only throw or answer, so they answer with
    /// cached data whenever there is some, and throw the refresh's error only when
    /// there is none at all.
    public func valueOrRefreshError() throws -> Value {
        if let refreshError, !hasCachedData { throw refreshError }
        return value
    }

    /// The same result around a value made from this one.
    func map<Other>(_ transform: (Value) throws -> Other) rethrows -> CachedResult<Other> {
        CachedResult<Other>(
            value: try transform(value), fetchedAt: fetchedAt, isStale: isStale, refreshError: refreshError,
            unreadable: unreadable, hasCachedData: hasCachedData)
    }
}
