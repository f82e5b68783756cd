import Foundation

// MARK: - Failure messages

/// Turns an error into the sentence a model publishes: what Shelf was doing, then
/// why it failed — "Could not load books: the server did not answer in 30 s".
///
/// Domain and service errors describe themselves (`CustomStringConvertible`), and
/// their descriptions never hold secrets (`LocalizedError` text is used when an
/// error offers it), so the message can be shown as it is.
enum FailureMessage {
    static func describe(_ error: any Error) -> String {
        if let localized = error as? any LocalizedError, let text = localized.errorDescription {
            return text
        }
        return String(describing: error)
    }

    /// "Could not <action>: <reason>".
    static func make(_ action: String, _ error: any Error) -> String {
        "Could not \(action): \(describe(error))"
    }
}

// MARK: - FeatureError

/// A request a model refused before asking any service, naming what was asked for.
public enum FeatureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The id names nothing the model has loaded.
    case notFound(kind: String, id: String)
    /// The product is not in the catalog, so it cannot go into the cart.
    case notInCatalog(productID: String)
    /// The intent needs content that has not been loaded yet.
    case notLoaded(String)
    /// The reader was asked to confirm the intent, and did not.
    case declined

    public var description: String {
        switch self {
        case .notFound(let kind, let id):
            return "no \(kind) with id '\(id)'"
        case .notInCatalog(let productID):
            return "product '\(productID)' is not in the catalog"
        case .notLoaded(let what):
            return "the \(what) is not loaded yet"
        case .declined:
            return "not confirmed; nothing was changed"
        }
    }
}
