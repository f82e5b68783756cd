import Foundation
import Services

// MARK: - RecordedResponses

/// Responses recorded from a real Kinto (`Scripts/capture-kinto-responses.sh`), read
/// from `Fixtures/responses/<name>.json` and `<name>.headers`, for fake transports.
public enum RecordedResponses {
    /// The body of a recorded response, as the server sent it.
    public static func body(_ name: String) throws -> Data {
        try FixtureFiles.data("responses/\(name).json")
    }

    /// The status and headers of a recorded response.
    public static func head(_ name: String) throws -> HTTPResponseHead {
        let text = String(decoding: try FixtureFiles.data("responses/\(name).headers"), as: UTF8.self)
        var status = 0
        var headers = HTTPHeaders()
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("HTTP/") {
                status = Int(line.split(separator: " ")[1]) ?? 0
            } else if let colon = line.firstIndex(of: ":") {
                headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
        }
        return HTTPResponseHead(status: status, headers: headers)
    }

    /// The whole recorded response (a missing body file gives an empty body, as for a 304).
    public static func response(_ name: String, url: String = "http://127.0.0.1:8888/v1/recorded") throws -> HTTPResponse {
        let head = try head(name)
        let bodyURL = FixtureFiles.url("responses/\(name).json")
        let body = FileManager.default.fileExists(atPath: bodyURL.path) ? try Data(contentsOf: bodyURL) : Data()
        return HTTPResponse(status: head.status, headers: head.headers, body: body, url: url)
    }
}
