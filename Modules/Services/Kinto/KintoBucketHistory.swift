import Foundation
import Vocabulary

// MARK: - BucketChange

/// One entry of a bucket's history (`kinto.plugins.history`): a change the server made to
/// something in the bucket, written in the same transaction as the change itself.
public struct BucketChange: Sendable, Hashable {
    /// The entry's own id.
    public var id: String
    /// The entry's own stamp, on the history's timeline (not the changed object's).
    public var stamp: Int64
    /// What changed: `record`, `collection`, `bucket`, `group`.
    public var resource: String
    /// The collection of a changed record or collection.
    public var collection: String?
    /// The changed record's id.
    public var recordID: String?
    /// The `last_modified` the change gave the object (a deletion's: its tombstone's).
    public var version: Int64?

    public init(id: String, stamp: Int64, resource: String, collection: String? = nil, recordID: String? = nil, version: Int64? = nil) {
        self.id = id
        self.stamp = stamp
        self.resource = resource
        self.collection = collection
        self.recordID = recordID
        self.version = version
    }
}

// MARK: - BucketHistoryPage

/// The answer to a history GET (`KintoRequest.bucketHistory`).
public struct BucketHistoryPage: Sendable, Hashable {
    /// The entries, oldest first.
    public var changes: [BucketChange]
    /// The history's timestamp (its `ETag`): the newest entry's stamp, or the server's
    /// clock when the history is empty. Nil when the server sent none.
    public var timestamp: Int64?
    /// The server has more entries than the page holds.
    public var morePagesFollow: Bool

    public init(changes: [BucketChange], timestamp: Int64?, morePagesFollow: Bool) {
        self.changes = changes
        self.timestamp = timestamp
        self.morePagesFollow = morePagesFollow
    }
}

// MARK: - Requests

extension KintoRequest {
    /// `/buckets/<bucket>/history`, relative to the API root.
    public static func bucketHistoryPath(inBucket bucket: String) -> String { "/buckets/\(bucket)/history" }

    /// The members an entry is read by (`BucketChange`); Kinto adds `id` and `last_modified`.
    static let bucketHistoryFields = ["resource_name", "collection_id", "record_id", "target.data.last_modified"]

    /// A GET of the bucket's history entries stamped after `since`, oldest first, at most
    /// `limit` of them, each with only what `BucketChange` reads. Its answer reads as a
    /// page (`BatchResult.bucketHistory()`).
    public static func bucketHistory(inBucket bucket: String, since: Int64, limit: Int) -> KintoRequest {
        let items = [
            URLQueryItem(name: "_since", value: String(max(0, since))),
            URLQueryItem(name: "_sort", value: "last_modified"),
            URLQueryItem(name: "_limit", value: String(max(1, limit))),
            URLQueryItem(name: "_fields", value: bucketHistoryFields.joined(separator: ",")),
        ]
        return KintoRequest(method: .get, path: bucketHistoryPath(inBucket: bucket) + "?" + APIClient.queryString(items))
    }

    /// A GET of the bucket's newest `limit` history entries, newest first: its answer's
    /// `timestamp` says how far the history has come, whatever its length.
    public static func bucketHistoryNewest(inBucket bucket: String, limit: Int) -> KintoRequest {
        let items = [
            URLQueryItem(name: "_sort", value: "-last_modified"),
            URLQueryItem(name: "_limit", value: String(max(1, limit))),
            URLQueryItem(name: "_fields", value: bucketHistoryFields.joined(separator: ",")),
        ]
        return KintoRequest(method: .get, path: bucketHistoryPath(inBucket: bucket) + "?" + APIClient.queryString(items))
    }
}

// MARK: - Reading the answer

extension BatchResult {
    /// The answer to a history GET as a page.
    /// - Throws: `error` when the sub-request failed (403, 404…); `APIError.decoding` for
    ///   a body that is no list of history entries.
    public func bucketHistory() throws(APIError) -> BucketHistoryPage {
        if let error { throw error }
        guard let listing = try? JSONDecoder().decode(BucketHistoryDTO.self, from: body) else {
            throw .decoding(DecodingFailure(url: path, path: "data", message: "not a list of history entries"))
        }
        let timestamp = headers["ETag"].flatMap(ETag.init(headerValue:))?.timestamp.map(Int64.init)
        return BucketHistoryPage(
            changes: listing.data.map(\.change), timestamp: timestamp, morePagesFollow: headers["Next-Page"] != nil)
    }
}

/// `{"data": [{"id", "last_modified", "resource_name", "collection_id", "record_id", "target": {"data": {"last_modified"}}}, …]}`.
struct BucketHistoryDTO: Decodable {
    struct Entry: Decodable {
        struct Target: Decodable {
            struct Object: Decodable {
                let last_modified: Int64?
            }
            let data: Object?
        }
        let id: String
        let last_modified: Int64
        let resource_name: String
        let collection_id: String?
        let record_id: String?
        let target: Target?

        var change: BucketChange {
            BucketChange(
                id: id, stamp: last_modified, resource: resource_name, collection: collection_id, recordID: record_id,
                version: target?.data?.last_modified)
        }
    }
    let data: [Entry]
}
