import Domain
import Foundation
import Records
import Services
import Storage

// MARK: - PushAnswer

/// What the server's answer to one pushed change says, read from the answer and the
/// change alone, with no store: the first half of storing a push batch's answers. The
/// second half (`SyncRun.storeAnswers`) carries each out in the batch's one transaction:
/// an acknowledgement, a merge, a dead letter, or nothing (the change stays in flight).
///
/// NB: a 412 and a 404 are no failures here but answers to merge; every other status
/// outside 2xx is sorted by `FailureClass.batchVerdict`, the one table of failures.
enum PushAnswer {
    /// 2xx: the server stored the change; its version as the server answered it.
    case stored(RawRecord)
    /// 412: the server holds another version than the change was based on (nil: none,
    /// the record was deleted). What was sent, already applied (a retry after a lost
    /// reply), comes back this way too, and the merge recognises it as an echo.
    case conflict(existing: RawRecord?)
    /// 404 to a deletion: the record is already gone, so the deletion is done.
    case alreadyDeleted
    /// 404 to a create or an update: the record went away on the server, an
    /// edit-versus-delete merge.
    case goneOnServer
    /// Failed for now (no answer, 5xx, 429…): the change stays in flight and is sent
    /// again as it was.
    case keepInFlight(reason: String)
    /// The run cannot go on (the credentials were refused…); the batch's other answers
    /// are stored first.
    case stopRun(APIError)
    /// Refused for good (a 400 for the schema or the size, a 403 on this collection…):
    /// the change is parked with the server's reason, so the rest of the outbox goes through.
    case deadLetter(status: Int, reason: String)

    /// Reads one answer.
    /// - Parameter kind: what the change was (a 404 means another thing to a deletion).
    /// - Throws: `APIError.decoding` for a 2xx whose body is no record.
    static func read(_ result: BatchResult, kind: OutboxEntry.Kind) throws(APIError) -> PushAnswer {
        if result.isSuccess { return .stored(try result.record()) }
        switch (result.status, result.error) {
        case (412, .preconditionFailed(_, let existing)?):
            return .conflict(existing: existing)
        case (404, _) where kind == .delete:
            return .alreadyDeleted
        case (404, _):
            return .goneOnServer
        case (let status, let error?):
            switch FailureClass(error).batchVerdict {
            case .keepInFlight: return .keepInFlight(reason: error.description)
            case .stopRun: return .stopRun(error)
            case .deadLetter: return .deadLetter(status: status, reason: reason(error, status: status))
            }
        case (let status, nil):
            // NB: not reached: an answer that is no success carries its error (`BatchResult.error`).
            return .keepInFlight(reason: "HTTP \(status)")
        }
    }

    /// The server's own words when it gave them (`message`, plus `details` for schema errors).
    static func reason(_ error: APIError?, status: Int) -> String {
        guard let failure = error?.httpFailure, let body = failure.serverError else {
            return error?.description ?? "HTTP \(status)"
        }
        return "HTTP \(status) \(body.error ?? ""): \(body.message ?? "")".trimmingCharacters(in: .whitespaces)
    }
}

// MARK: - PushBatchAnswer

/// A push batch's answers, read as a whole before any is stored.
enum PushBatchAnswer {
    /// A 409 among the answers: Kinto answers a write that clashed on its unique timestamp
    /// (another writer in the collection at that instant) with 409 "please retry" and rolls
    /// back the batch's transaction, the writes answered 2xx before it included (measured
    /// on its PostgreSQL storage: 978 writes answered 201, 788 stored). So no answer is
    /// stored: every change of the batch stays in flight and is sent again as it was, and
    /// one that did land comes back as a 412 carrying exactly what was sent.
    case rolledBack(reason: String)
    /// One answer per change, in the batch's order.
    case answered([PushAnswer])

    /// - Parameter kinds: the changes' kinds, in the batch's order.
    /// - Throws: `APIError.decoding` for a 2xx whose body is no record.
    static func read(_ results: [BatchResult], kinds: [OutboxEntry.Kind]) throws(APIError) -> PushBatchAnswer {
        if let clash = results.first(where: { $0.status == 409 }) {
            let said = clash.error.map { "\($0)" } ?? "HTTP 409"
            return .rolledBack(reason: "\(said); the server rolled the batch back")
        }
        var answers: [PushAnswer] = []
        answers.reserveCapacity(min(results.count, kinds.count))
        for (result, kind) in zip(results, kinds) { answers.append(try PushAnswer.read(result, kind: kind)) }
        return .answered(answers)
    }
}
