import Domain
import Foundation

// MARK: - RenderableScreen

/// A snapshot of a screen's state, taken from its model on the main actor, that
/// renders as a text table or as JSON anywhere.
///
/// JSON is stable: keys sorted, every key present (null when empty), field names
/// those of the Domain (`id`, `title`, `isFinished`, `bookID`, `price` …).
public protocol RenderableScreen: Encodable, Sendable {
    /// The screen as text for people, ending in a newline.
    func renderText(_ options: RenderOptions) -> String
}

extension RenderableScreen {
    /// The screen as pretty-printed JSON with sorted keys, ending in a newline.
    public func renderJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    public func render(_ format: OutputFormat, options: RenderOptions = .plain) throws -> String {
        switch format {
        case .text: renderText(options)
        case .json: try renderJSON()
        }
    }
}
