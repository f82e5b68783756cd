// MARK: - OutputFormat

/// The two shapes Shelf's output takes: text for people, JSON for scripts (`--json`).
/// Every screen renders to both; the pager only ever shows text.
public enum OutputFormat: String, CaseIterable, Hashable, Sendable {
    case text, json
}
