import Vocabulary

// MARK: - KintoCollectionPath

/// A Kinto collection: `/buckets/<bucket>/collections/<collection>`.
///
/// The reader's own data lives in the `default` bucket, which Kinto maps to a bucket
/// private to the authenticated user; the shop catalog lives in the shared `shop` bucket.
public struct KintoCollectionPath: Hashable, Sendable, CustomStringConvertible {
    public let bucket: String
    public let collection: String

    /// The bucket of the shared, read-only shop catalog.
    public static let catalogBucket = "shop"
    /// Kinto's alias for the authenticated user's own bucket.
    public static let userBucket = "default"

    /// The path of one of Shelf's collections: `products` in the shop bucket, every
    /// other collection in the user's own bucket.
    public init(_ name: CollectionName) {
        self.init(name, userBucket: nil)
    }

    /// The same path with the user's bucket named by its id (`user.bucket` of `GET /v1/`)
    /// instead of Kinto's `default` alias, when it is known. Such a path reaches only a
    /// collection that exists: the alias is what creates one on first use.
    public init(_ name: CollectionName, userBucket: String?) {
        bucket = name.isReadOnly ? Self.catalogBucket : (userBucket ?? Self.userBucket)
        collection = name.rawValue
    }

    /// Any bucket and collection.
    /// - Throws: `APIError.invalidRequest` when a name holds characters Kinto ids may not
    ///   (letters, digits, `-`, `_`; 1…64), which also keeps them safe inside a URL path.
    public init(bucket: String, collection: String) throws(APIError) {
        self.bucket = try Self.validate(bucket, "bucket")
        self.collection = try Self.validate(collection, "collection")
    }

    /// `/buckets/<bucket>/collections/<collection>`, the collection object itself, whose
    /// `last_modified` changes only when the collection is created again (or touched).
    public var objectPath: String { Self.collectionsPath(inBucket: bucket) + "/" + collection }

    /// `/buckets/<bucket>/collections/<collection>/records`, relative to the API root.
    public var recordsPath: String { objectPath + "/records" }

    /// `/buckets/<bucket>/collections`: the bucket's collection objects, each with its
    /// `last_modified` (`CollectionTimestamps`).
    public static func collectionsPath(inBucket bucket: String) -> String { "/buckets/\(bucket)/collections" }

    /// The path of one record.
    /// - Throws: `APIError.invalidRequest` for an id Kinto would refuse.
    public func recordPath(_ id: String) throws(APIError) -> String {
        recordsPath + "/" + (try Self.validate(id, "record id"))
    }

    public var description: String { "\(bucket)/\(collection)" }

    private static func validate(_ name: String, _ what: String) throws(APIError) -> String {
        do {
            return try RecordID.validate(name)
        } catch {
            throw .invalidRequest("\(what) '\(name)': \(error)")
        }
    }
}
