// MARK: - KeyBindings

/// Every key `shelf ui` answers to, in the order `?` lists them. One table, so the help
/// screen cannot fall behind what the keys do.
public enum KeyBindings {
    public struct Binding: Hashable, Sendable {
        public let keys: String
        public let action: String

        public init(keys: String, action: String) {
            self.keys = keys
            self.action = action
        }
    }

    public static let all: [Binding] = [
        Binding(keys: "↑↓ jk PgUp/Dn g G", action: "move the selection; a screenful; to the first, the last"),
        Binding(keys: "Enter", action: "open the selected place"),
        Binding(keys: "Esc  Backspace", action: "back one place, or close the view (ends a search first)"),
        Binding(keys: "/", action: "search the library as you type"),
        Binding(keys: "o  u", action: "order by title, author, finished; unfinished only"),
        Binding(keys: "f", action: "favorite, or not (library, book, favorites)"),
        Binding(keys: "x", action: "finished, or not (library, book); a task done (tasks)"),
        Binding(keys: "e  n  E", action: "edit a book or a note; a new note on it; a body in $EDITOR"),
        Binding(keys: "s", action: "sync now, in the background"),
        Binding(keys: "S", action: "the sync status: last run, waiting, conflicts, backoff"),
        Binding(keys: "P", action: "what waits for a sync; u undoes one, r redoes"),
        Binding(keys: "X", action: "the changes the server refused; r retries, d discards"),
        Binding(keys: "C", action: "the conflicts: Enter opens one, l / r sides, w resolves"),
        Binding(keys: "N", action: "every note; Enter opens one"),
        Binding(keys: "D", action: "the reading tasks"),
        Binding(keys: "F", action: "the favorite books"),
        Binding(keys: "$", action: "the shop's products; a puts one in the cart"),
        Binding(keys: "c", action: "the cart; + / - quantity, d removes"),
        Binding(keys: "T", action: "today: minutes against the goal, the streak, 30 days"),
        Binding(keys: "?", action: "these keys"),
        Binding(keys: "q  Ctrl-C", action: "quit, keeping the path for next time"),
    ]
}
