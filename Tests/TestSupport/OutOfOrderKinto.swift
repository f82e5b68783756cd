import Foundation
import Services
import Synchronization

// MARK: - OutOfOrderKinto

/// One Kinto collection, in process, whose writes become visible when the test commits
/// them — in any order, whatever their stamps: what Kinto on PostgreSQL does when two
/// transactions write one collection at once (each record is stamped while its
/// transaction is still open).
///
/// It answers what a pull and a reconciliation ask: `GET …/records` with `_since`
/// (tombstones included; without it, live records only), `_sort=last_modified`,
/// `_fields`, `in_id` and `_limit` (one page; no `Next-Page`), with the collection's
/// `ETag` — the newest stamp committed — and `GET …/collections` with the collection
/// object. Every other request is answered 404. Requests are recorded.
public final class OutOfOrderKinto: Sendable {
    public let collection: String

    private struct Version {
        var id: String
        var lastModified: Int64
        var deleted: Bool
        var fields: [String: String]
    }

    private struct State {
        var committed: [String: Version] = [:]
        var open: [Int: Version] = [:]
        var nextTransaction = 0
        var requests: [String] = []
    }

    private let state = Mutex(State())

    public init(collection: String = "books") {
        self.collection = collection
    }

    // MARK: Writes

    /// Writes a record (or its tombstone) stamped `lastModified` in a transaction that
    /// stays open until `commit(_:)`. - Returns: the transaction.
    @discardableResult
    public func write(_ id: String, at lastModified: Int64, title: String = "", deleted: Bool = false) -> Int {
        state.withLock { state in
            let transaction = state.nextTransaction
            state.nextTransaction += 1
            state.open[transaction] = Version(id: id, lastModified: lastModified, deleted: deleted, fields: ["title": title])
            return transaction
        }
    }

    /// Makes a transaction's write visible.
    public func commit(_ transaction: Int) {
        state.withLock { state in
            guard let version = state.open.removeValue(forKey: transaction) else { return }
            state.committed[version.id] = version
        }
    }

    /// Writes and commits at once.
    public func put(_ id: String, at lastModified: Int64, title: String = "", deleted: Bool = false) {
        commit(write(id, at: lastModified, title: title, deleted: deleted))
    }

    /// Forgets a record entirely, tombstone included (a server restored without it).
    public func forget(_ id: String) {
        state.withLock { _ = $0.committed.removeValue(forKey: id) }
    }

    /// The URLs asked for so far, in order.
    public var requests: [String] { state.withLock { $0.requests } }

    // MARK: Answers

    /// The transport that answers as this server.
    public var transport: FakeHTTPTransport {
        FakeHTTPTransport { [self] request in answer(request) }
    }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        let url = request.url
        let (committed, etag): ([Version], Int64) = state.withLock { state in
            state.requests.append(url)
            let versions = Array(state.committed.values)
            return (versions, versions.map(\.lastModified).max() ?? 0)
        }
        let components = URLComponents(string: url)
        let path = components?.path ?? ""
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        if path.hasSuffix("/buckets/default/collections") {
            return Self.json(#"{"data":[{"id":"\#(collection)","last_modified":1}]}"#, etag: 1, url: url)
        }
        guard request.method == .get, path.hasSuffix("/collections/\(collection)/records") else {
            return HTTPResponse(status: 404, headers: HTTPHeaders([("Content-Type", "application/json")]),
                                body: Data(#"{"code":404,"errno":111,"error":"Not Found"}"#.utf8), url: url)
        }
        var listed = committed
        if let since = query["_since"].flatMap(Int64.init) {
            listed = listed.filter { $0.lastModified > since }
        } else {
            listed = listed.filter { !$0.deleted }
        }
        if let ids = query["in_id"] {
            let wanted = Set(ids.split(separator: ",").map(String.init))
            listed = listed.filter { wanted.contains($0.id) }
        }
        listed.sort { $0.lastModified < $1.lastModified }
        if let limit = query["_limit"].flatMap(Int.init), limit < listed.count { listed = Array(listed.prefix(limit)) }
        let fields = query["_fields"].map { Set($0.split(separator: ",").map(String.init)) }
        let records = listed.map { version in Self.record(version, fields: fields) }
        return Self.json(#"{"data":[\#(records.joined(separator: ","))]}"#, etag: etag, url: url)
    }

    private static func record(_ version: Version, fields: Set<String>?) -> String {
        var members = [#""id":"\#(version.id)""#, #""last_modified":\#(version.lastModified)"#]
        if version.deleted {
            if fields == nil || fields?.contains("deleted") == true { members.append(#""deleted":true"#) }
        } else {
            for (name, value) in version.fields.sorted(by: { $0.key < $1.key }) where fields == nil || fields?.contains(name) == true {
                members.append(#""\#(name)":"\#(value)""#)
            }
            if fields == nil { members += [#""author_name":"A""#, #""finished":false"#] }
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    private static func json(_ text: String, etag: Int64, url: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json"), ("ETag", "\"\(etag)\"")]),
                     body: Data(text.utf8), url: url)
    }
}
