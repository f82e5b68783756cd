import Domain
import Presentation

// MARK: - NavigationScreen

/// The router's path as `shelf open` shows it: the screens open, root first, with
/// the deep link of each.
public struct NavigationScreen: RenderableScreen, Hashable {
    public let path: [RouteView]
    public let error: String?

    @MainActor
    public init(_ router: Router) {
        path = router.path.map(RouteView.init)
        error = router.errorMessage
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        if path.isEmpty {
            text.line("At the root: no screen open.")
        } else {
            var table = TextTable([.init("#", .right), .init("KIND"), .init("VALUE"), .init("LINK")])
            for (index, route) in path.enumerated() {
                table.append(String(index + 1), route.kind, route.value, route.url)
            }
            text.table(table)
        }
        text.error(error)
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case path, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(error, forKey: .error)
    }
}
