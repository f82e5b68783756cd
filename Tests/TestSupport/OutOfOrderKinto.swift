import Foundation
import Services
import Synchronization

// MARK: - OutOfOrderKinto

/// One Kinto collection, in process, whose writes become visible when the test commits
/// them — in any order, whatever their stamps: what Kinto on PostgreSQL does when two
/// transactions write one collection at once (each record is stamped while its
/// transaction is still open).
///
/// It answers what a pull and a reconciliation ask: `GET …/records` with `_since` and
/// `_before` (tombstones included; without either, live records only), `_sort=last_modified`,
/// `_fields`, `in_id` and `_limit` (a `Next-Page` when more follow, its `_token` the last
/// stamp listed; `paginate(by:)` caps pages as Kinto's `paginate_by` does), `HEAD …/records` with
/// `Total-Objects` (live records only; `answerCounts` makes it lie), each with the
/// collection's `ETag` — the newest stamp committed — `GET …/collections` with the
/// collection object, and `POST /batch` of those. Every other request is answered 404.
/// Requests are recorded.
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
        var asked: [String] = []
        var httpRequests = 0
        var failFrom: Int?
        var countAnswer: (@Sendable (Int64?, Int64?, Int) -> String?)?
        var refusedBucket: String?
        var pageSize: Int?
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

    /// Writes and commits many records at once, one stamp each (a large collection).
    public func putMany(_ stamped: [(id: String, lastModified: Int64)]) {
        state.withLock { state in
            for (id, lastModified) in stamped {
                state.committed[id] = Version(id: id, lastModified: lastModified, deleted: false, fields: ["title": id])
            }
        }
    }

    /// The URLs asked for so far, in order: one per HTTP request (a `POST /batch` is one).
    public var requests: [String] { state.withLock { $0.requests } }

    /// Every request and every sub-request of a batch (`METHOD path`), in order.
    public var asked: [String] { state.withLock { $0.asked } }

    /// The server's count of a range instead of the true one, for a server whose counts lie:
    /// given `_since`, `_before` and the true count, the `Total-Objects` value to answer
    /// (nil: no count at all).
    public func answerCounts(with lie: (@Sendable (_ since: Int64?, _ before: Int64?, _ count: Int) -> String?)?) {
        state.withLock { $0.countAnswer = lie }
    }

    /// Paths through this bucket (`/buckets/<id>/…`) are answered 403, as Kinto answers a
    /// bucket id that is not the user's. Nil: every bucket is this collection's.
    public func refuseBucket(_ id: String?) {
        state.withLock { $0.refusedBucket = id }
    }

    /// Pages of at most `size` records, whatever `_limit` asks (Kinto's `paginate_by`);
    /// nil for pages as large as `_limit` says.
    public func paginate(by size: Int?) {
        state.withLock { $0.pageSize = size }
    }

    /// From the `count`-th HTTP request on (0 first), every request is answered 503: a
    /// server that goes away in the middle of a run. Nil to answer again.
    public func failRequests(from count: Int?) {
        state.withLock { $0.failFrom = count }
    }

    // MARK: Answers

    /// The transport that answers as this server.
    public var transport: FakeHTTPTransport {
        FakeHTTPTransport { [self] request in answer(request) }
    }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        let url = request.url
        let fails = state.withLock { state in
            state.requests.append(url)
            state.asked.append("\(request.method.rawValue) \(url)")
            defer { state.httpRequests += 1 }
            return state.failFrom.map { state.httpRequests >= $0 } ?? false
        }
        if fails {
            return HTTPResponse(status: 503, headers: HTTPHeaders([("Content-Type", "application/json")]),
                                body: Data(#"{"code":503,"errno":201,"error":"Service Unavailable"}"#.utf8), url: url)
        }
        let components = URLComponents(string: url)
        let path = components?.path ?? ""
        if request.method == .post, path.hasSuffix("/batch") { return batch(request) }
        return answer(method: request.method, path: path, query: components?.queryItems ?? [], url: url)
    }

    /// One answer to a list, a count or the bucket's collections; 404 to anything else.
    private func answer(method: HTTPMethod, path: String, query items: [URLQueryItem], url: String) -> HTTPResponse {
        let (committed, etag, lie, refused, pageSize): ([Version], Int64, (@Sendable (Int64?, Int64?, Int) -> String?)?, String?, Int?) =
            state.withLock { state in
                let versions = Array(state.committed.values)
                return (versions, versions.map(\.lastModified).max() ?? 0, state.countAnswer, state.refusedBucket, state.pageSize)
            }
        if let refused, path.contains("/buckets/\(refused)/") {
            return HTTPResponse(status: 403, headers: HTTPHeaders([("Content-Type", "application/json")]),
                                body: Data(#"{"code":403,"errno":121,"error":"Forbidden"}"#.utf8), url: url)
        }
        var query: [String: String] = [:]
        for item in items { query[item.name] = item.value ?? "" }
        if path.hasSuffix("/buckets/default/collections") {
            return Self.json(#"{"data":[{"id":"\#(collection)","last_modified":1}]}"#, etag: 1, url: url)
        }
        guard method == .get || method == .head, path.hasSuffix("/collections/\(collection)/records") else {
            return HTTPResponse(status: 404, headers: HTTPHeaders([("Content-Type", "application/json")]),
                                body: Data(#"{"code":404,"errno":111,"error":"Not Found"}"#.utf8), url: url)
        }
        var listed = committed
        let since = query["_since"].flatMap(Int64.init)
        let before = query["_before"].flatMap(Int64.init)
        if let since { listed = listed.filter { $0.lastModified > since } }
        if let before { listed = listed.filter { $0.lastModified < before } }
        if since == nil && before == nil { listed = listed.filter { !$0.deleted } }
        if let ids = query["in_id"] {
            let wanted = Set(ids.split(separator: ",").map(String.init))
            listed = listed.filter { wanted.contains($0.id) }
        }
        if method == .head {
            let live = listed.count { !$0.deleted }
            let count = lie.map { $0(since, before, live) } ?? String(live)
            var headers = [("Content-Type", "application/json"), ("ETag", "\"\(etag)\"")]
            if let count { headers.append(("Total-Objects", count)) }
            return HTTPResponse(status: 200, headers: HTTPHeaders(headers), body: Data(), url: url)
        }
        listed.sort { $0.lastModified < $1.lastModified }
        // NB: a page's `Next-Page` carries the last stamp it listed as its token (the list is
        // sorted by `last_modified`), as Kinto's carries the last record's sort values.
        if let token = query["_token"].flatMap(Int64.init) { listed = listed.filter { $0.lastModified > token } }
        var more = false
        let limits = [query["_limit"].flatMap(Int.init), pageSize].compactMap { $0 }
        if let limit = limits.min(), limit < listed.count {
            listed = Array(listed.prefix(limit))
            more = true
        }
        let fields = query["_fields"].map { Set($0.split(separator: ",").map(String.init)) }
        let records = listed.map { version in Self.record(version, fields: fields) }
        var response = Self.json(#"{"data":[\#(records.joined(separator: ","))]}"#, etag: etag, url: url)
        if more, let last = listed.last {
            let untokened = url.components(separatedBy: "&_token=").first ?? url
            response.headers.add("Next-Page", untokened + (untokened.contains("?") ? "&" : "?") + "_token=\(last.lastModified)")
        }
        return response
    }

    /// `POST /batch`: each sub-request answered as above, in order, inside one 200.
    private func batch(_ request: HTTPRequest) -> HTTPResponse {
        let body = (try? JSONSerialization.jsonObject(with: request.body ?? Data())) as? [String: Any]
        let subrequests = body?["requests"] as? [[String: Any]] ?? []
        var responses: [String] = []
        for subrequest in subrequests {
            let method = HTTPMethod(rawValue: subrequest["method"] as? String ?? "GET") ?? .get
            let path = subrequest["path"] as? String ?? ""
            state.withLock { $0.asked.append("\(method.rawValue) \(path)") }
            let components = URLComponents(string: path)
            let answer = answer(method: method, path: components?.path ?? "", query: components?.queryItems ?? [], url: path)
            var headers: [String: String] = [:]
            for name in ["ETag", "Total-Objects", "Next-Page", "Content-Type"] { headers[name] = answer.headers[name] }
            let headerJSON = String(decoding: (try? JSONSerialization.data(withJSONObject: headers, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
            let bodyJSON = answer.body.isEmpty ? "null" : String(decoding: answer.body, as: UTF8.self)
            let quotedPath = String(decoding: (try? JSONSerialization.data(withJSONObject: ["/v1" + path], options: [])) ?? Data("[\"\"]".utf8), as: UTF8.self).dropFirst().dropLast()
            responses.append(#"{"status":\#(answer.status),"path":\#(quotedPath),"headers":\#(headerJSON),"body":\#(bodyJSON)}"#)
        }
        return Self.json(#"{"responses":[\#(responses.joined(separator: ","))]}"#, etag: 0, url: request.url)
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
