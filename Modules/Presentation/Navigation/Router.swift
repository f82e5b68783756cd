import Domain
import Observation

// MARK: - Router

/// The navigation path: a stack of `Route`s that deep links, pushes and pops change,
/// saved to the `PreferencesStore` on every change and restored when the router is
/// created, so the next launch opens where the reader left off.
///
/// A malformed link is refused with a message and leaves the path as it was: a link
/// is never guessed at. A failed save keeps the navigation (the reader still gets
/// where they asked to go) and says that it will not survive a restart.
@MainActor
@Observable
public final class Router {
    // MARK: State

    /// From the root (first) to the screen on top (last).
    public private(set) var path: [Route]
    /// Why the last link was refused or the path could not be read or saved.
    public private(set) var errorMessage: String?

    /// The screen on top, nil at the root.
    public var current: Route? { path.last }

    // MARK: Dependencies

    private let preferences: any PreferencesStore

    /// Restores the path saved by the previous launch.
    public init(preferences: any PreferencesStore) {
        self.preferences = preferences
        do {
            path = try preferences.routerPath()
        } catch {
            path = []
            errorMessage = FailureMessage.make("restore the last screen", error)
        }
    }

    // MARK: Intents

    /// Opens a deep link such as `shelf://book/b-42` on top of the path.
    /// - Returns: whether the link was valid; a malformed link sets `errorMessage`
    ///   and leaves the path unchanged.
    @discardableResult
    public func open(url: String) -> Bool {
        let route: Route
        do {
            route = try Route(url: url)
        } catch {
            errorMessage = FailureMessage.make("open the link", error)
            return false
        }
        push(route)
        return true
    }

    public func push(_ route: Route) {
        change(to: path + [route])
    }

    /// Goes back one screen.
    /// - Returns: the route left, nil at the root.
    @discardableResult
    public func pop() -> Route? {
        guard let top = path.last else { return nil }
        change(to: Array(path.dropLast()))
        return top
    }

    /// Goes back to the root.
    public func popToRoot() {
        change(to: [])
    }

    public func dismissError() {
        errorMessage = nil
    }

    // MARK: Saving

    private func change(to newPath: [Route]) {
        path = newPath
        do {
            try preferences.setRouterPath(newPath)
            errorMessage = nil
        } catch {
            errorMessage = FailureMessage.make("save the current screen for the next launch", error)
        }
    }
}
