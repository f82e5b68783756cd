import Foundation
import Records
import Vocabulary

// MARK: - BatchResult

/// One sub-response of `POST /batch`: the batch itself answers 200 around per-request statuses.
public struct BatchResult: Sendable, Hashable {
    public var status: Int
    /// The sub-request's path as the server reports it (with the `/v1` prefix).
    public var path: String
    public var headers: HTTPHeaders
    /// The sub-response's body bytes (`null` when it had none).
    public var body: Data
    /// The method of the operation this answers.
    public var method: HTTPMethod

    public init(status: Int, path: String, headers: HTTPHeaders = [:], body: Data, method: HTTPMethod) {
        self.status = status
        self.path = path
        self.headers = headers
        self.body = body
        self.method = method
    }

    public var isSuccess: Bool { (200...299).contains(status) }

    /// The error this sub-response's status stands for (412 with `existing`, 403, 404…), nil on success.
    public var error: APIError? {
        isSuccess ? nil : APIError(status: status, headers: headers, body: body, method: method, url: path)
    }

    /// `Backoff`, in seconds, when the server asked clients to slow down.
    public var backoff: TimeInterval? { HeaderValues.backoff(headers["Backoff"]) }

    /// The answer to a list GET (`KintoRequest.list`) as a page: `.notModified` for a
    /// 304, else the records, the `ETag` and where the rest is.
    ///
    /// NB: a sub-response's `Next-Page` names the batch's own host and path, not the
    /// list's, so more records to come read as `.byCursor`, never as a URL to follow.
    /// - Parameter collection: the collection listed, when its records go to the store:
    ///   each then carries its indexed members (`RawRecord.indexedFields`).
    /// - Throws: `error` when the sub-request failed (403, 404…); `APIError.decoding`
    ///   for a body that is no record list.
    public func page(indexingFor collection: CollectionName? = nil) throws(APIError) -> PageResult {
        let etag = headers["ETag"].flatMap(ETag.init(headerValue:))
        if status == 304 { return .notModified(etag: etag, backoff: backoff) }
        if let error { throw error }
        let records: [RawRecord]
        do {
            records = try RecordPageScanner.scan(body, indexingFor: collection)
        } catch {
            if case .decoding(let failure) = error { throw .decoding(failure.with(url: path)) }
            throw error
        }
        return .page(RecordPage(records: records, next: headers["Next-Page"] == nil ? .done : .byCursor, etag: etag, backoff: backoff))
    }

    /// The answer to a count (`KintoRequest.count`): `Total-Objects` (or the older
    /// `Total-Records`) as the server wrote it; nil when it failed, or sent no count or
    /// one that is not a number of records.
    public var totalObjects: Int? {
        guard isSuccess, let value = headers["Total-Objects"] ?? headers["Total-Records"],
              let count = Int(value.trimmingCharacters(in: .whitespaces)), count >= 0 else { return nil }
        return count
    }

    /// The answer to a collections GET (`KintoRequest.listCollections`): each
    /// collection's own `last_modified` by id; nil when it failed or does not read.
    public func collectionTimestamps() -> [String: Int64]? {
        isSuccess ? KintoCollectionObjects.timestamps(in: body) : nil
    }

    /// The record written (or the tombstone left) by a successful sub-request.
    /// - Throws: `error` when it failed; `APIError.decoding` when the body holds no record.
    public func record() throws(APIError) -> RawRecord {
        if let error { throw error }
        return try KintoBody.record(in: body, url: path)
    }
}

// MARK: - KintoBatchService

/// `POST /batch`: many writes in one round trip, split into calls of at most
/// `maximumRequests` (Kinto's `batch_max_requests`, 25 by default; 26 is a 400).
public struct KintoBatchService: Sendable {
    public static let defaultMaximumRequests = 25

    public let client: APIClient
    public let maximumRequests: Int

    public init(client: APIClient, maximumRequests: Int = KintoBatchService.defaultMaximumRequests) {
        self.client = client
        self.maximumRequests = max(1, maximumRequests)
    }

    /// Sends the operations in consecutive calls of at most `maximumRequests`, one after
    /// the other, in order.
    ///
    /// A caller that must record progress after each call (the sync engine, whose
    /// outbox entries leave in one transaction per call) sends chunks of `maximumRequests` itself.
    /// - Returns: one result per operation, in the operations' order.
    /// - Throws: the first call's failure (`APIError`); earlier calls' writes stay applied.
    public func send(_ operations: [KintoRequest]) async throws -> [BatchResult] {
        var results: [BatchResult] = []
        results.reserveCapacity(operations.count)
        for start in stride(from: 0, to: operations.count, by: maximumRequests) {
            let chunk = Array(operations[start..<min(start + maximumRequests, operations.count)])
            results += try await sendOne(chunk)
        }
        return results
    }

    /// One `POST /batch` call.
    private func sendOne(_ operations: [KintoRequest]) async throws -> [BatchResult] {
        let response = try await client.send(.post, "/batch", body: try Self.requestBody(operations))
        do {
            return try Self.results(from: response.value, for: operations)
        } catch {
            if case .decoding(let failure) = error { throw APIError.decoding(failure.with(url: response.url)) }
            throw error
        }
    }

    /// `{"requests": [{"method", "path", "headers", "body"}, …]}`, record bodies copied byte for byte.
    static func requestBody(_ operations: [KintoRequest]) throws(APIError) -> Data {
        var body = Data("{\"requests\":[".utf8)
        for (index, operation) in operations.enumerated() {
            guard operation.path.hasPrefix("/") else { throw .invalidRequest("batch path '\(operation.path)' must start with '/'") }
            if index > 0 { body.append(UInt8(ascii: ",")) }
            var head = "{\"method\":\(KintoBody.quoted(operation.method.rawValue)),\"path\":\(KintoBody.quoted(operation.path))"
            if let precondition = operation.precondition {
                head += ",\"headers\":{\(KintoBody.quoted(precondition.header.name)):\(KintoBody.quoted(precondition.header.value))}"
            }
            body.append(contentsOf: head.utf8)
            if let payload = operation.body {
                try KintoBody.requireObject(payload)
                body.append(contentsOf: ",\"body\":".utf8)
                body.append(payload)
            }
            body.append(UInt8(ascii: "}"))
        }
        body.append(contentsOf: "]}".utf8)
        return body
    }

    /// Reads `{"responses": [{"status", "path", "headers", "body"}, …]}`.
    static func results(from body: Data, for operations: [KintoRequest]) throws(APIError) -> [BatchResult] {
        let results: [BatchResult]
        do throws(JSONScanError) {
            results = try JSONByteScanner.withScanner(over: body) { (scanner) throws(JSONScanError) in
                var results: [BatchResult] = []
                try scanner.forEachMember { key, scanner throws(JSONScanError) in
                    guard scanner.key(key, is: "responses") else {
                        try scanner.skipValue()
                        return
                    }
                    try scanner.forEachElement { scanner throws(JSONScanError) in
                        let index = results.count
                        let method = index < operations.count ? operations[index].method : .get
                        results.append(try scanner.scanBatchResponse(method: method))
                    }
                }
                try scanner.expectEnd()
                return results
            }
        } catch {
            throw .decoding(error.decodingFailure)
        }
        guard results.count == operations.count else {
            throw .decoding(DecodingFailure(path: "responses", message: "expected \(operations.count) responses, got \(results.count)"))
        }
        return results
    }
}

extension JSONByteScanner {
    mutating func scanBatchResponse(method: HTTPMethod) throws(JSONScanError) -> BatchResult {
        skipWhitespace()
        let start = offset
        var status: Int?
        var path = ""
        var headers = HTTPHeaders()
        var body = Data("null".utf8)
        try forEachMember { key, scanner throws(JSONScanError) in
            if scanner.key(key, is: "status") {
                status = try scanner.readInteger("a batch response's \"status\"")
            } else if scanner.key(key, is: "path") {
                path = try scanner.readString("a batch response's \"path\"")
            } else if scanner.key(key, is: "headers") {
                try scanner.forEachMember { name, scanner throws(JSONScanError) in
                    headers.add(scanner.decode(name), try scanner.readString("a header value"))
                }
            } else if scanner.key(key, is: "body") {
                let range = try scanner.skipValue()
                body = Data(bytes: scanner.base + range.lowerBound, count: range.count)
            } else {
                try scanner.skipValue()
            }
        }
        guard let status else { throw fail("a batch response has no \"status\"", at: start) }
        return BatchResult(status: status, path: path, headers: headers, body: body, method: method)
    }
}
