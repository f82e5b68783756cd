// MARK: - RenderOptions

/// How a screen is rendered as text. The app decides; rendering never looks at the
/// terminal or the environment itself.
public struct RenderOptions: Hashable, Sendable {
    /// Whether to use ANSI colour and bold. The app decides (`ColorChoice`); when off,
    /// the output holds no escape codes at all.
    public var color: Bool
    /// The terminal's width in columns: no line of text is wider (tables shrink their
    /// widest column, prose wraps). Nil for no limit, e.g. a pipe.
    public var width: Int?

    public init(color: Bool = false, width: Int? = nil) {
        self.color = color
        self.width = width.map { max(1, $0) }
    }

    public static let plain = RenderOptions(color: false)
}

// MARK: - TextStyle

/// The few styles Shelf's text output uses, as ANSI escapes when colour is on.
struct TextStyle {
    enum Role {
        case header, error, quiet, positive, warning
    }

    let color: Bool

    init(_ options: RenderOptions) {
        color = options.color
    }

    /// Whether `apply` wraps text of this role in escapes (colour on and a role given).
    func styles(_ role: Role?) -> Bool {
        color && role != nil
    }

    func apply(_ role: Role?, to text: String) -> String {
        guard color, let role, !text.isEmpty else { return text }
        let code = switch role {
        case .header: "1"
        case .error: "31"
        case .quiet: "2"
        case .positive: "32"
        case .warning: "33"
        }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }
}
