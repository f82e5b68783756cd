// MARK: - KeyBindings

/// Every key `shelf ui` answers to, in the order `?` lists them. One table, so the help
/// screen cannot fall behind what the keys do.
public enum KeyBindings {
    public struct Binding: Hashable, Sendable {
        public let keys: String
        public let action: String
    }

    public static let all: [Binding] = [
        Binding(keys: "↑ ↓  k j", action: "move the selection"),
        Binding(keys: "PgUp PgDn", action: "move a screenful"),
        Binding(keys: "g  G", action: "first, last"),
        Binding(keys: "Enter", action: "open the selected place"),
        Binding(keys: "Esc  Backspace", action: "back one place (ends a search first)"),
        Binding(keys: "/", action: "search the library as you type"),
        Binding(keys: "o", action: "order: title, author, finished"),
        Binding(keys: "u", action: "unfinished books only, or all"),
        Binding(keys: "f", action: "favorite, or not (library and book)"),
        Binding(keys: "x", action: "finished, or not (library and book)"),
        Binding(keys: "s", action: "sync now, in the background"),
        Binding(keys: "S", action: "the sync status: last run, waiting, conflicts, backoff"),
        Binding(keys: "P", action: "the changes waiting for a sync; u there takes one back"),
        Binding(keys: "N", action: "every note; Enter opens one"),
        Binding(keys: "D", action: "the reading tasks; x marks one done or not"),
        Binding(keys: "C", action: "the conflicts; Enter opens one, l / r keep local / server, w resolves"),
        Binding(keys: "T", action: "today: minutes against the goal, the streak, 30 days"),
        Binding(keys: "?", action: "these keys"),
        Binding(keys: "q  Ctrl-C", action: "quit, keeping the path for next time"),
    ]
}
