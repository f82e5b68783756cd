// MARK: - ScreenWithUnreadable

/// A screen whose JSON also lists the stored records its reads left out because they
/// do not read (`"unreadable": [{"collection", "id", "reason"}]`, empty when none), so
/// a script sees them as a person sees the warning on standard error. The text is the
/// screen's own.
public struct ScreenWithUnreadable<Screen: RenderableScreen>: RenderableScreen {
    public let screen: Screen
    public let unreadable: [UnreadableRecordView]

    public init(_ screen: Screen, unreadable: [UnreadableRecordView]) {
        self.screen = screen
        self.unreadable = unreadable
    }

    public func renderText(_ options: RenderOptions) -> String {
        screen.renderText(options)
    }

    private enum CodingKeys: String, CodingKey { case unreadable }

    public func encode(to encoder: any Encoder) throws {
        // NB: the screen encodes its keyed members first; asking the same encoder for
        // a keyed container again adds to that object rather than starting another.
        try screen.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(unreadable, forKey: .unreadable)
    }
}

// MARK: - UnreadableRecordView

/// One record a read left out, as `--json` shows it.
public struct UnreadableRecordView: Encodable, Hashable, Sendable {
    public let collection: String
    public let id: String
    public let reason: String

    public init(collection: String, id: String, reason: String) {
        self.collection = collection
        self.id = id
        self.reason = reason
    }
}
