import Domain
import Foundation
import Records
import Services
import Storage
import Testing
@testable import Sync

// MARK: - PushAnswerTests

/// What a push batch's answers say, read without a store and without a server
/// (`PushBatchAnswer.read`, `PushAnswer.read`): the first half of storing them, from Kinto's
/// own answer bodies. What each answer then does to the store is `InFlightTests`,
/// `PushAcknowledgementTests` and `MergePlanTests`.
@Suite struct PushAnswerTests {
    // MARK: - Answers as Kinto gives them

    static func answer(_ status: Int, _ body: String, headers: HTTPHeaders = [:], method: HTTPMethod = .put) -> BatchResult {
        BatchResult(status: status, path: "/v1/buckets/default/collections/books/records/b", headers: headers,
                    body: Data(body.utf8), method: method)
    }

    static func error(_ status: Int, _ name: String, message: String, details: String = "") -> String {
        let extra = details.isEmpty ? "" : #", "details": \#(details)"#
        return #"{"code": \#(status), "errno": 0, "error": "\#(name)", "message": "\#(message)"\#(extra)}"#
    }

    /// An answer's shape, for comparing: its case and what decides the store's work.
    static func shape(_ answer: PushAnswer) -> String {
        switch answer {
        case .stored(let record): "stored \(record.id)@\(record.lastModified)\(record.isDeleted ? " deleted" : "")"
        case .conflict(let existing): "conflict " + (existing.map { "\($0.id)@\($0.lastModified)" } ?? "deleted")
        case .alreadyDeleted: "already deleted"
        case .goneOnServer: "gone on the server"
        case .keepInFlight: "keep in flight"
        case .stopRun(let error): "stop the run (\(error.status.map(String.init) ?? "no status"))"
        case .deadLetter(let status, let reason): "dead letter \(status): \(reason)"
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let answer: BatchResult
        var kind: OutboxEntry.Kind = .update
        let shape: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "201 to a create: stored, at the server's stamp",
             answer: answer(201, #"{"data": {"id": "b", "last_modified": 20, "title": "Dune"}}"#), kind: .create,
             shape: "stored b@20"),
        Case(name: "200 to an update: stored",
             answer: answer(200, #"{"data": {"id": "b", "last_modified": 21, "title": "Dune"}}"#), shape: "stored b@21"),
        Case(name: "200 to a delete: stored as the tombstone",
             answer: answer(200, #"{"data": {"id": "b", "last_modified": 22, "deleted": true}}"#, method: .delete),
             kind: .delete, shape: "stored b@22 deleted"),
        Case(name: "412 with the server's version: a conflict to merge (or the change's own echo)",
             answer: answer(412, error(412, "Precondition Failed", message: "Resource was modified meanwhile",
                                       details: #"{"existing": {"id": "b", "last_modified": 30, "title": "Other"}}"#)),
             shape: "conflict b@30"),
        Case(name: "412 without a version: the record was deleted on the server",
             answer: answer(412, error(412, "Precondition Failed", message: "Resource was modified meanwhile")),
             shape: "conflict deleted"),
        Case(name: "404 to a deletion: already gone, the deletion is done",
             answer: answer(404, error(404, "Not Found", message: "The resource you are looking for could not be found."), method: .delete),
             kind: .delete, shape: "already deleted"),
        Case(name: "404 to an update: gone on the server, an edit-versus-delete merge",
             answer: answer(404, error(404, "Not Found", message: "The resource you are looking for could not be found.")),
             shape: "gone on the server"),
        Case(name: "400 for the schema: parked with the server's words",
             answer: answer(400, error(400, "Invalid parameters", message: "data.title in body: 'title' is a required property",
                                       details: #"[{"location": "body", "name": "data.title"}]"#)),
             shape: "dead letter 400: HTTP 400 Invalid parameters: data.title in body: 'title' is a required property"),
        Case(name: "403 on this collection: parked",
             answer: answer(403, error(403, "Forbidden", message: "This user cannot access this resource.")),
             shape: "dead letter 403: HTTP 403 Forbidden: This user cannot access this resource."),
        Case(name: "401: the run stops, the batch's other answers stored first",
             answer: answer(401, error(401, "Unauthorized", message: "Please authenticate yourself to use this endpoint.")),
             shape: "stop the run (401)"),
        Case(name: "500: kept in flight, sent again as it was",
             answer: answer(500, error(500, "Internal Server Error", message: "A programmatic error occured.")),
             shape: "keep in flight"),
        Case(name: "503 with Retry-After (throttled): kept in flight",
             answer: answer(503, error(503, "Service Unavailable", message: "Service temporary unavailable due to overloading or maintenance, please retry later."),
                            headers: ["Retry-After": "30"]),
             shape: "keep in flight"),
        Case(name: "429: kept in flight",
             answer: answer(429, error(429, "Too Many Requests", message: "Please retry later.")), shape: "keep in flight"),
    ]

    @Test(arguments: cases)
    func eachAnswerReadsAsTheTableSays(_ row: Case) throws {
        let batch = try PushBatchAnswer.read([row.answer], kinds: [row.kind])
        guard case .answered(let answers) = batch else {
            Issue.record("the batch read as rolled back")
            return
        }
        #expect(answers.map(Self.shape) == [row.shape])
    }

    // MARK: - The batch as a whole

    @Test func aClashAnywhereRollsTheWholeBatchBackAndNoAnswerIsStored() throws {
        let stored = Self.answer(201, #"{"data": {"id": "b", "last_modified": 20}}"#)
        let clash = Self.answer(409, Self.error(409, "Conflict", message: "Integrity constraint violated, please retry."))
        let batch = try PushBatchAnswer.read([stored, clash, stored], kinds: [.create, .update, .create])
        guard case .rolledBack(let reason) = batch else {
            Issue.record("a batch with a 409 read as answered")
            return
        }
        #expect(reason.contains("409"))
        #expect(reason.hasSuffix("the server rolled the batch back"))
    }

    @Test func answersKeepTheBatchsOrder() throws {
        let batch = try PushBatchAnswer.read(
            [Self.answer(201, #"{"data": {"id": "a", "last_modified": 1}}"#),
             Self.answer(404, Self.error(404, "Not Found", message: "gone"), method: .delete),
             Self.answer(500, Self.error(500, "Internal Server Error", message: "oops"))],
            kinds: [.create, .delete, .update])
        guard case .answered(let answers) = batch else {
            Issue.record("the batch read as rolled back")
            return
        }
        #expect(answers.map(Self.shape) == ["stored a@1", "already deleted", "keep in flight"])
    }

    @Test func aSuccessWhoseBodyIsNoRecordFailsTheReadingSoNothingIsStored() {
        #expect(throws: APIError.self) {
            _ = try PushBatchAnswer.read([Self.answer(201, #"{"data": "not a record"}"#)], kinds: [.create])
        }
    }
}
