import Foundation
import Records
import Vocabulary

// MARK: - KintoCollectionService

/// One Kinto collection at the record level: lists page by page and reads, on raw record
/// bytes (`RawRecord`) — what the sync engine stores without re-encoding. Writes are
/// request values (`KintoRequest`), sent in a batch or alone (`APIClient.write`).
///
/// The server decides what is allowed: a write to the read-only catalog comes back as
/// `APIError.forbidden`. Records become Domain values through their DTOs (RecordDTOs'
/// `RecordDecoding`), in the repositories, from what the store holds.
public struct KintoCollectionService: Sendable {
    public let client: APIClient
    public let path: KintoCollectionPath

    public init(client: APIClient, path: KintoCollectionPath) {
        self.client = client
        self.path = path
    }

    public init(client: APIClient, collection: CollectionName) {
        self.init(client: client, path: KintoCollectionPath(collection))
    }

    // MARK: Listing, a page at a time

    /// Requests the first page of the list.
    /// - Parameters:
    ///   - onNextPage: called with the `Next-Page` URL as soon as the page's headers
    ///     arrive, before its body — time to ask for the next page already.
    /// - Returns: the page, or `.notModified` when `query.ifNoneMatch` still matches.
    /// - Throws: `APIError` (`.decoding` for a malformed page or repeated ids), `CancellationError`.
    @concurrent
    public func firstPage(
        _ query: ListQuery = ListQuery(), onNextPage: (@Sendable (String) -> Void)? = nil
    ) async throws -> PageResult {
        let response = try await client.send(
            .get, path.recordsPath, query: query.queryItems,
            precondition: query.ifNoneMatch.map { .ifNoneMatch($0) }, onHead: Self.nextPageHook(onNextPage))
        if response.isNotModified {
            return .notModified(etag: response.etag ?? query.ifNoneMatch, backoff: response.backoff)
        }
        return .page(try Self.page(from: response, indexingFor: CollectionName(rawValue: path.collection)))
    }

    /// Requests a following page by the URL a previous page gave (`RecordPage.next`).
    @concurrent
    public func page(at nextPage: String, onNextPage: (@Sendable (String) -> Void)? = nil) async throws -> RecordPage {
        let response = try await client.send(.get, url: nextPage, onHead: Self.nextPageHook(onNextPage))
        return try Self.page(from: response, indexingFor: CollectionName(rawValue: path.collection))
    }

    /// Every page of the list, concatenated; `.notModified` when `query.ifNoneMatch` matches.
    /// For lists the caller keeps in memory anyway; the sync engine goes page by page.
    /// - Throws: `PagingError` when a `Next-Page` leads off the list or back to a page
    ///   already fetched, when a list sorted by `last_modified` stops moving, or past
    ///   `maximumPages` pages (`PagingGuard`): a server's paging never loops for ever.
    public func allRecords(_ query: ListQuery = ListQuery(), maximumPages: Int = 1_000) async throws -> PageResult {
        let first = try await firstPage(query)
        guard case .page(var combined) = first else { return first }
        var guardrail = PagingGuard(
            listing: self, since: query.since.map(Int64.init), advancing: query.sort.first == "last_modified", maximumPages: maximumPages)
        try guardrail.check(combined)
        while let next = combined.next.url {
            let page = try await page(at: next)
            try guardrail.check(page)
            combined.records += page.records
            combined.next = page.next
            combined.backoff = page.backoff ?? combined.backoff
        }
        try RecordPageScanner.requireUniqueIDs(combined.records)
        return .page(combined)
    }

    /// - Parameter collection: Shelf's collection at this path, whose indexed members
    ///   each record carries for the store (`RawRecord.indexedFields`).
    static func page(from response: Response<Data>, indexingFor collection: CollectionName?) throws(APIError) -> RecordPage {
        let records: [RawRecord]
        do {
            records = try RecordPageScanner.scan(response.value, indexingFor: collection)
        } catch {
            if case .decoding(let failure) = error { throw .decoding(failure.with(url: response.url)) }
            throw error
        }
        return RecordPage(records: records, next: response.nextPage.map(PageContinuation.url) ?? .done, etag: response.etag, backoff: response.backoff)
    }

    private static func nextPageHook(_ onNextPage: (@Sendable (String) -> Void)?) -> (@Sendable (HTTPResponseHead) -> Void)? {
        guard let onNextPage else { return nil }
        return { head in
            if let next = head.headers["Next-Page"], !next.isEmpty { onNextPage(next) }
        }
    }

    // MARK: One record

    /// - Throws: `APIError.notFound` when there is no such record.
    public func record(id: String) async throws -> RawRecord {
        let response = try await client.send(.get, try path.recordPath(id))
        return try KintoBody.record(in: response.value, url: response.url)
    }
}
