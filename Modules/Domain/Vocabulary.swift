// MARK: - Vocabulary

/// Domain speaks Shelf's vocabulary (`Modules/Vocabulary`: collection names, record ids,
/// JSON values, exit codes, server capabilities, the clock, safe text), so a module that
/// imports Domain sees it too. A module that needs only the vocabulary imports it alone
/// and is not rebuilt when an entity or a port changes.
@_exported import Vocabulary
