import Foundation
import Records
import Vocabulary

// MARK: - Reading raw records from responses

extension JSONScanError {
    /// Malformed JSON in a response, as the client reports it.
    var decodingFailure: DecodingFailure {
        DecodingFailure(offset: offset, message: message)
    }
}

extension RawRecord {
    /// Reads one record object (`{"id": …, "last_modified": …, …}`).
    /// - Throws: `APIError.decoding` when the bytes are not one, with the byte offset.
    public init(json: Data) throws(APIError) {
        do throws(JSONScanError) {
            self = try RawRecord(scanning: json)
        } catch {
            throw .decoding(error.decodingFailure)
        }
    }

    /// The record's fields as `JSONValue`s, for field-by-field work (three-way merges).
    ///
    /// Uses `JSONDecoder` (`WireJSON.fields`): this is the per-record merge path, not the
    /// per-page sync path.
    public func fields() throws(APIError) -> [String: JSONValue] {
        do {
            return try WireJSON.fields(json)
        } catch {
            throw .decoding(DecodingFailure(path: "record \(id)", message: error.description))
        }
    }
}
