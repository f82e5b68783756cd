import Domain
import Presentation

// MARK: - NavigationScreen

/// The router's path as `shelf open`, `back` and `where` show it: the places open,
/// root first, each with its title and deep link, then what the place on top leads to.
public struct NavigationScreen: RenderableScreen, Hashable {
    public let path: [Entry]
    /// What the route on top leads to; nil at the root or when it could not be shown.
    public let destination: PlaceView?
    /// Why the destination could not be shown (the record is gone, the store failed).
    public let destinationError: String?
    public let error: String?
    private let shortIDs: ShortIDs

    /// One place of the path.
    public struct Entry: Encodable, Hashable, Sendable {
        public let route: RouteView
        /// The book's or note's title, the author's number of books; nil when unknown.
        public let title: String?

        private enum CodingKeys: String, CodingKey { case kind, value, url, title }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(route.kind, forKey: .kind)
            try container.encode(route.value, forKey: .value)
            try container.encode(route.url, forKey: .url)
            try container.encode(title, forKey: .title)
        }
    }

    /// - Parameters:
    ///   - titles: what to show next to each route (`Router.pathTitles()`).
    ///   - shortIDs: the prefixes of the books' and notes' ids the tables show.
    @MainActor
    public init(_ router: Router, titles: [Route: String] = [:], shortIDs: ShortIDs = .full) {
        path = router.path.map { Entry(route: RouteView($0), title: titles[$0]) }
        destination = router.current == nil ? nil : router.destination.value.map(PlaceView.init)
        destinationError = router.current == nil ? nil : router.destination.failureMessage
        error = router.errorMessage
        self.shortIDs = shortIDs
    }

    /// The book and note ids the screen of `router` shows, for their short forms.
    @MainActor
    public static func idsShown(by router: Router) -> [(CollectionName, [String])] {
        let destination = router.destination.value.map(PlaceView.init)
        let books = router.path.compactMap { route in if case .book(let id) = route { id } else { nil } }
        let notes = router.path.compactMap { route in if case .note(let id) = route { id } else { nil } }
        return [(.books, books + (destination?.bookIDs ?? [])), (.notes, notes + (destination?.noteIDs ?? []))]
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        if path.isEmpty {
            text.line("At the root: no screen open.")
        } else {
            var table = TextTable([.init("#", .right), .init("KIND"), .init("VALUE"), .init("TITLE"), .init("LINK")])
            for (index, entry) in path.enumerated() {
                table.append(String(index + 1), entry.route.kind, shown(entry.route), entry.title ?? "", entry.route.url)
            }
            text.table(table)
        }
        if let destination {
            text.line("")
            destination.render(into: &text, shortIDs: shortIDs)
        }
        if let destinationError { text.line(destinationError, .quiet) }
        text.error(error)
        return text.text
    }

    private func shown(_ route: RouteView) -> String {
        switch route.kind {
        case Route.Kind.book.rawValue: shortIDs.shown(route.value, in: .books)
        case Route.Kind.note.rawValue: shortIDs.shown(route.value, in: .notes)
        default: route.value
        }
    }

    private enum CodingKeys: String, CodingKey { case path, destination, destinationError, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(destination, forKey: .destination)
        try container.encode(destinationError, forKey: .destinationError)
        try container.encode(error, forKey: .error)
    }
}
