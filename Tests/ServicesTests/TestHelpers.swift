import Foundation
import Services

// MARK: - Reading APIError cases in expectations

extension APIError {
    var decodingFailure: DecodingFailure? {
        if case .decoding(let failure) = self { return failure }
        return nil
    }

    var transportFailure: TransportFailure? {
        if case .transport(let failure) = self { return failure }
        return nil
    }

    var existingRecord: RawRecord?? {
        if case .preconditionFailed(_, let existing) = self { return .some(existing) }
        return nil
    }
}

extension Data {
    /// Test inputs written inline, for byte-level cases too small to be fixture files.
    init(json: String) { self.init(json.utf8) }
}
