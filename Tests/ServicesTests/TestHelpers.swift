import Foundation
import Services

// MARK: - Inline JSON

extension Data {
    /// Test inputs written inline, for byte-level cases too small to be fixture files.
    init(json: String) { self.init(json.utf8) }
}
