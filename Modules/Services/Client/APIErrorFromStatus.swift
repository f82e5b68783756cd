import Foundation
import Records

// MARK: - APIError from an HTTP status

extension APIError {
    /// The error an HTTP answer with a non-success status stands for. Used for direct
    /// responses and for each response inside a `POST /batch`.
    init(status: Int, headers: HTTPHeaders, body: Data, method: HTTPMethod, url: String) {
        let failure = HTTPFailure(
            method: method, url: url, status: status, serverError: KintoErrorBody.parse(body),
            retryAfter: HeaderValues.retryAfter(headers["Retry-After"]),
            backoff: HeaderValues.backoff(headers["Backoff"]))
        switch status {
        case 401: self = .unauthorized(failure)
        case 403: self = .forbidden(failure)
        case 404: self = .notFound(failure)
        case 412: self = .preconditionFailed(failure, existing: Self.parseExisting(in: body))
        default: self = .httpStatus(failure)
        }
    }

    /// Kinto's `details.existing` in a 412 body: the record as the server has it now.
    /// Nil when absent (the record was deleted) or unreadable.
    static func parseExisting(in body: Data) -> RawRecord? {
        try? JSONByteScanner.withScanner(over: body) { (scanner) throws(JSONScanError) -> RawRecord? in
            try scanner.scanRecord(at: ["details", "existing"])
        }
    }
}
