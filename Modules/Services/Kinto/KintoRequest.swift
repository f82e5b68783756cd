import Foundation
import Records
import Vocabulary

// MARK: - KintoRequest

/// One Kinto request as a value: its method, path, body and precondition, built once by
/// the constructors below. A batch carries it as a sub-request
/// (`KintoBatchService.send`), and a write is sent alone just the same
/// (`APIClient.write`), so `If-Match` / `If-None-Match` are written in one place.
public struct KintoRequest: Sendable, Hashable {
    public var method: HTTPMethod
    /// Relative to the API root, e.g. `/buckets/default/collections/books/records/b1`.
    public var path: String
    /// The sub-request's whole JSON body (`{"data": {…}}`), if any.
    public var body: Data?
    public var precondition: Precondition?

    public init(method: HTTPMethod, path: String, body: Data? = nil, precondition: Precondition? = nil) {
        self.method = method
        self.path = path
        self.body = body
        self.precondition = precondition
    }

    /// Create `id` with `If-None-Match: *`; `data` is the record's JSON object.
    public static func create(in collection: KintoCollectionPath, id: String, data: Data) throws(APIError) -> KintoRequest {
        KintoRequest(method: .put, path: try collection.recordPath(id), body: try KintoBody.envelope(data), precondition: .ifNoneMatchAny)
    }

    /// Replace `id`, with `If-Match: "<lastModified>"` unless it is nil.
    public static func update(in collection: KintoCollectionPath, id: String, data: Data, ifMatch lastModified: Int?) throws(APIError) -> KintoRequest {
        KintoRequest(
            method: .put, path: try collection.recordPath(id), body: try KintoBody.envelope(data),
            precondition: lastModified.map { .ifMatch(lastModified: $0) })
    }

    /// A GET of `collection`'s record list as `query` describes it (`ListQuery.path(in:)`),
    /// with its `If-None-Match` when it has one. Its answer reads as a page
    /// (`BatchResult.page()`).
    public static func list(in collection: KintoCollectionPath, query: ListQuery) -> KintoRequest {
        KintoRequest(method: .get, path: query.path(in: collection), precondition: query.ifNoneMatch.map { .ifNoneMatch($0) })
    }

    /// A HEAD of `collection`'s record list as `query` filters it: the server counts its
    /// live records (tombstones never count) and answers the number in `Total-Objects`
    /// (`BatchResult.totalObjects`). Paging, sorting and fields play no part.
    public static func count(in collection: KintoCollectionPath, query: ListQuery) -> KintoRequest {
        var filter = query
        (filter.limit, filter.sort, filter.fields, filter.ifNoneMatch) = (nil, [], [], nil)
        return KintoRequest(method: .head, path: filter.path(in: collection))
    }

    /// A GET of one record; its answer reads as the record (`BatchResult.record()`), or a 404.
    public static func read(in collection: KintoCollectionPath, id: String) throws(APIError) -> KintoRequest {
        KintoRequest(method: .get, path: try collection.recordPath(id))
    }

    /// A GET of a bucket's collection objects; its answer reads as each collection's
    /// timestamp (`BatchResult.collectionTimestamps()`).
    public static func listCollections(inBucket bucket: String) -> KintoRequest {
        KintoRequest(method: .get, path: KintoCollectionPath.collectionsPath(inBucket: bucket))
    }

    /// Delete `id`, with `If-Match: "<lastModified>"` unless it is nil.
    public static func delete(in collection: KintoCollectionPath, id: String, ifMatch lastModified: Int?) throws(APIError) -> KintoRequest {
        KintoRequest(method: .delete, path: try collection.recordPath(id), precondition: lastModified.map { .ifMatch(lastModified: $0) })
    }
}

// MARK: - Sending one alone

extension APIClient {
    /// Sends one write (`KintoRequest.create`, `.update`, `.delete`) on its own, as a
    /// batch would carry it.
    /// - Returns: the record as stored, or the tombstone a delete left.
    /// - Throws: `APIError.preconditionFailed` with the server's current record when a
    ///   precondition fails; `.invalidRequest` for a list request (its path carries a
    ///   query: lists go through `KintoCollectionService`).
    public func write(_ request: KintoRequest) async throws -> RawRecord {
        let response = try await send(request.method, request.path, body: request.body, precondition: request.precondition)
        return try KintoBody.record(in: response.value, url: response.url)
    }
}
