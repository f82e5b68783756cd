// MARK: - ConflictPolicy

/// What to do with a field that both this device and the server changed since the
/// last sync. Changes to different fields always merge; this decides only true clashes.
public enum ConflictPolicy: String, Sendable, CaseIterable, Codable {
    /// Keep the local edit, don't push it, and store the conflict for `shelf resolve`.
    case manual
    /// The server's value wins the clashing fields (and a server-side delete wins).
    case serverWins = "server-wins"
    /// The local value wins the clashing fields (and a local delete wins).
    case clientWins = "client-wins"
}
