import Foundation
import Records

// MARK: - Kinto bodies

/// Reading and writing the `{"data": …}` envelope of Kinto's record endpoints at the
/// byte level, so record bytes go to and from the server unchanged.
enum KintoBody {
    /// The record in a `{"data": {…}, "permissions": {…}}` response.
    static func record(in body: Data, url: String) throws(APIError) -> RawRecord {
        do throws(JSONScanError) {
            return try JSONByteScanner.withScanner(over: body) { (scanner) throws(JSONScanError) in
                guard let record = try scanner.scanRecord(at: ["data"]) else {
                    throw JSONScanError(offset: 0, message: "the response has no \"data\" record")
                }
                try scanner.expectEnd()
                return record
            }
        } catch {
            throw .decoding(error.decodingFailure.with(url: url))
        }
    }

    /// `{"data": <record>}` around a record's JSON object bytes.
    /// - Throws: `APIError.invalidRequest` when `record` is not one JSON object.
    static func envelope(_ record: Data) throws(APIError) -> Data {
        try requireObject(record)
        var body = Data("{\"data\":".utf8)
        body.reserveCapacity(record.count + 9)
        body.append(record)
        body.append(UInt8(ascii: "}"))
        return body
    }

    static func requireObject(_ json: Data) throws(APIError) {
        do throws(JSONScanError) {
            try JSONByteScanner.withScanner(over: json) { (scanner) throws(JSONScanError) in
                scanner.skipWhitespace()
                guard scanner.peek == UInt8(ascii: "{") else { throw scanner.fail("expected a JSON object") }
                try scanner.skipValue()
                try scanner.expectEnd()
            }
        } catch {
            throw .invalidRequest("record data is not a JSON object: \(error.message) at byte \(error.offset)")
        }
    }

    /// A JSON string literal for `text`, quotes included.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04X", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
