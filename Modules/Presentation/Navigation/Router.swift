import Domain
import Observation

// MARK: - Router

/// The navigation path: a stack of `Route`s that deep links, pushes and pops change,
/// saved to the `PreferencesStore` on every change and restored when the router is
/// created, so the next launch opens where the reader left off.
///
/// A malformed link, or one to a record the store does not have, is refused with a
/// message and leaves the path as it was: a link is never guessed at, and never leads
/// nowhere. A book or note link may hold a unique prefix of the id (`PlaceService`);
/// the path keeps the full id. A failed save keeps the navigation (the reader still
/// gets where they asked to go) and says that it will not survive a restart.
///
/// `destination` is what the top of the path leads to, loaded by every move through a
/// link and by `showDestination()`.
@MainActor
@Observable
public final class Router {
    // MARK: State

    /// From the root (first) to the screen on top (last).
    public private(set) var path: [Route]
    /// Why the last link was refused or the path could not be read or saved.
    public private(set) var errorMessage: String?
    /// Why the last link was refused, for a caller that sorts refusals (the CLI's exit
    /// status); nil after a link that was followed.
    public private(set) var refusal: LinkRefusal?
    /// What the route on top leads to: a book with its notes, an author's books, a note.
    public private(set) var destination: LoadingState<Place> = .idle

    /// The screen on top, nil at the root.
    public var current: Route? { path.last }

    // MARK: Dependencies

    private let preferences: any PreferencesStore
    private let places: any PlaceService
    /// The latest navigation intent: a link or destination load that finishes after a
    /// newer intent (another link, a push, a pop) was made applies nothing.
    private var ticket = 0

    /// Restores the path saved by the previous launch.
    /// - Parameter places: what links lead to; a link to nothing is refused.
    public init(preferences: any PreferencesStore, places: any PlaceService) {
        self.preferences = preferences
        self.places = places
        do {
            path = try preferences.routerPath()
        } catch {
            path = []
            errorMessage = FailureMessage.make("restore the last screen", error)
        }
    }

    // MARK: Intents

    /// Opens a deep link such as `shelf://book/b-42` on top of the path, once its place
    /// is found: the route pushed is the place's exact one (a prefix completed).
    /// - Returns: whether the link was followed; a malformed link or one to nothing
    ///   sets `errorMessage` and `refusal` and leaves the path (and `destination`) unchanged.
    ///   A link whose place arrives after a newer intent (another link, a push or pop)
    ///   is dropped: it returns false and changes nothing.
    @discardableResult
    public func open(url: String) async -> Bool {
        ticket += 1
        let mine = ticket
        let route: Route
        do {
            route = try Route(url: url)
        } catch {
            return refuse(.malformed(error))
        }
        let place: Place
        do {
            place = try await places.place(at: route)
        } catch let error as RecordLookupError {
            guard mine == ticket else { return false }
            return refuse(.lookup(error))
        } catch {
            guard mine == ticket else { return false }
            return refuse(.unreadable(FailureMessage.describe(error)))
        }
        guard mine == ticket else { return false }
        push(place.route)
        destination = .loaded(place)
        return true
    }

    /// Loads what the route on top leads to now (after `pop()`, or for `where`); at
    /// the root there is nothing to load. A record gone since it was opened leaves a
    /// failed `destination` whose message says so.
    public func showDestination() async {
        ticket += 1
        let mine = ticket
        guard let top = current else {
            destination = .idle
            return
        }
        destination = destination.startingLoad()
        let loaded: LoadingState<Place>
        do {
            loaded = .loaded(try await places.place(at: top))
        } catch {
            loaded = .failed(message: FailureMessage.make("show \(top.url)", error), previous: nil)
        }
        guard mine == ticket else { return }
        destination = loaded
    }

    /// The titles of the path's books and notes, for showing next to their ids.
    public func pathTitles() async -> [Route: String] {
        (try? await places.titles(of: path)) ?? [:]
    }

    public func push(_ route: Route) {
        ticket += 1
        change(to: path + [route])
    }

    /// Goes back one screen.
    /// - Returns: the route left, nil at the root.
    @discardableResult
    public func pop() -> Route? {
        guard let top = path.last else { return nil }
        ticket += 1
        change(to: Array(path.dropLast()))
        return top
    }

    /// Goes back to the root.
    public func popToRoot() {
        ticket += 1
        change(to: [])
    }

    private func refuse(_ reason: LinkRefusal) -> Bool {
        refusal = reason
        errorMessage = FailureMessage.make("open the link", reason)
        return false
    }

    // MARK: Saving

    private func change(to newPath: [Route]) {
        path = newPath
        refusal = nil
        do {
            try preferences.setRouterPath(newPath)
            errorMessage = nil
        } catch {
            errorMessage = FailureMessage.make("save the current screen for the next launch", error)
        }
    }
}

// MARK: - LinkRefusal

/// Why `Router.open(url:)` refused a link.
public enum LinkRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a Shelf link (`RouteError` says what is wrong with it).
    case malformed(RouteError)
    /// A well-formed link to no record, to several (an ambiguous prefix), or with a
    /// prefix too short to look up.
    case lookup(RecordLookupError)
    /// The store could not be read.
    case unreadable(String)

    public var description: String {
        switch self {
        case .malformed(let error): error.description
        case .lookup(let error): error.description
        case .unreadable(let reason): reason
        }
    }
}
