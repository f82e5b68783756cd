import Foundation

// MARK: - KintoCollectionObjects

/// The collection objects of a bucket — not their records. Each has its own
/// `last_modified`, which changes only when the collection is created again (or
/// touched), so it tells a collection the server deleted and recreated from one that
/// merely has no new records.
public struct KintoCollectionObjects: Sendable {
    public let client: APIClient

    public init(client: APIClient) {
        self.client = client
    }

    /// Every collection of `bucket` with its `last_modified`, by id.
    /// - Throws: `APIError`; `APIError.decoding` when the list does not read.
    public func timestamps(inBucket bucket: String) async throws -> [String: Int64] {
        let response = try await client.send(.get, KintoCollectionPath.collectionsPath(inBucket: bucket))
        guard let timestamps = Self.timestamps(in: response.value) else {
            throw APIError.decoding(DecodingFailure(url: response.url, path: "data", message: "not a list of collections with their last_modified"))
        }
        return timestamps
    }

    /// Gives the collection object a new `last_modified` (an empty `PATCH`), which
    /// every client that remembers the old one notices.
    /// - Returns: the new timestamp.
    public func touch(_ collection: KintoCollectionPath) async throws -> Int64 {
        let response = try await client.send(.patch, collection.objectPath, body: Data(#"{"data":{}}"#.utf8))
        return Int64(try KintoBody.record(in: response.value, url: response.url).lastModified)
    }

    /// `{"data": [{"id", "last_modified"}, …]}` → id: last_modified; nil when it does not read.
    static func timestamps(in body: Data) -> [String: Int64]? {
        struct Listing: Decodable {
            struct Entry: Decodable {
                let id: String
                let last_modified: Int64
            }
            let data: [Entry]
        }
        guard let listing = try? JSONDecoder().decode(Listing.self, from: body) else { return nil }
        return Dictionary(listing.data.map { ($0.id, $0.last_modified) }, uniquingKeysWith: max)
    }
}
