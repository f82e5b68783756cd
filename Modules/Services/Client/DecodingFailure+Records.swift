import Foundation
import Records

// MARK: - DecodingFailure from other failures

extension DecodingFailure {
    /// A `JSONDecoder` failure as a `DecodingFailure`: the coding path written the way
    /// people read JSON (`data[3].author_name`), after `pathPrefix`.
    init(decoding error: any Error, url: String? = nil, pathPrefix: String = "") {
        self.init(url: url, path: DecodingErrorText.path(of: error, after: pathPrefix), message: DecodingErrorText.message(for: error))
    }
}
