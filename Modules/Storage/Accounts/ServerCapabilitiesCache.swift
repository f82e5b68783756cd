import Domain
import Foundation

// MARK: - ServerCapabilitiesCache

/// The server capabilities last read for an account (`GET /v1/`), kept beside its store
/// as `<account>.server.json` so a run does not ask for them again: read once per
/// account, replaced when a request shows they changed.
///
/// A cache: a missing, unreadable or malformed file reads as "not known yet", and a
/// write that fails only costs one request on the next run.
public struct ServerCapabilitiesCache: Sendable {
    public let paths: ShelfPaths

    public init(paths: ShelfPaths) {
        self.paths = paths
    }

    public func file(_ account: AccountName) -> URL {
        paths.dataDirectory.appendingPathComponent("\(account.rawValue).server.json")
    }

    /// The cached capabilities, nil when none are (usably) cached.
    public func load(_ account: AccountName, server: String) -> ServerCapabilities? {
        guard let data = FileManager.default.contents(atPath: file(account).path),
              data.count <= 64 * 1024,
              let entry = try? JSONDecoder().decode(Entry.self, from: data),
              entry.server == server
        else { return nil }
        return entry.capabilities
    }

    /// Keeps `capabilities` for the account's `server` (written atomically, mode 0600).
    public func save(_ capabilities: ServerCapabilities, for account: AccountName, server: String) throws(AccountConfigError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(Entry(server: server, capabilities: capabilities)) } catch {
            throw .invalidFile(path: file(account).path, reason: "\(error)")
        }
        try SecretFile.writeAtomically(data + Data("\n".utf8), to: file(account))
    }

    /// Drops the cached capabilities: the next run reads them from the server again.
    public func forget(_ account: AccountName) {
        try? FileManager.default.removeItem(at: file(account))
    }

    /// The capabilities with the server they describe: an account moved to another
    /// server does not inherit the old one's.
    private struct Entry: Codable {
        var server: String
        var capabilities: ServerCapabilities
    }
}
