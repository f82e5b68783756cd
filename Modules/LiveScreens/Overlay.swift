import Terminal

// MARK: - Overlay

/// A view shown over the place on top of the Router's path: the keys, the sync status, the
/// lists of the account (notes, tasks, favorites, the shop, the cart) and the decisions a
/// sync leaves (pending, failed, conflicts). Not a place: opening one does not change the
/// path, so `shelf where` still names the place under it.
enum Overlay: Equatable, Sendable, CaseIterable {
    case keys, syncStatus, pending, failed, conflicts, notes, tasks, favorites, products, cart, today

    /// The key that opens the view from anywhere; pressed again (or Esc), it closes it.
    var key: Key {
        switch self {
        case .keys: .character("?")
        case .syncStatus: .character("S")
        case .pending: .character("P")
        case .failed: .character("X")
        case .conflicts: .character("C")
        case .notes: .character("N")
        case .tasks: .character("D")
        case .favorites: .character("F")
        case .products: .character("$")
        case .cart: .character("c")
        case .today: .character("T")
        }
    }

    /// Its name at the end of the path bar.
    var name: String {
        switch self {
        case .keys: "Keys"
        case .syncStatus: "Sync"
        case .pending: "Pending"
        case .failed: "Failed"
        case .conflicts: "Conflicts"
        case .notes: "Notes"
        case .tasks: "Tasks"
        case .favorites: "Favorites"
        case .products: "Products"
        case .cart: "Cart"
        case .today: "Today"
        }
    }

    /// The view a key opens, if it opens one.
    static func opened(by key: Key) -> Overlay? {
        allCases.first { $0.key == key }
    }
}
