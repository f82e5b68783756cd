import Domain
import Foundation
import Storage

// MARK: - ConflictResolver

/// A person's decisions on what a sync could not settle: conflicts (`shelf resolve`)
/// and changes the server refused (`shelf retry`, `shelf discard`). Each decision is
/// one transaction, takes effect locally at once, and reaches the server on the next sync.
public struct ConflictResolver: Sendable {
    public enum Side: String, Sendable, CaseIterable {
        case local, remote
    }

    public let store: ShelfStore

    public init(store: ShelfStore) {
        self.store = store
    }

    /// Settles a conflict.
    /// - `local`: the local version is pushed on the next sync, against the server's
    ///   current version (so it replaces the server's change rather than clashing again).
    /// - `remote`: the local change is dropped and the server's version becomes the local one.
    /// - Throws: `ResolutionError.noConflict` when the record has none.
    public func resolve(_ collection: CollectionName, id: String, keep side: Side) throws {
        try store.write { tx in
            guard let conflict = try tx.conflict(collection, id: id) else {
                throw ResolutionError.noConflict(collection: collection, id: id)
            }
            let remote = Self.remoteRecord(conflict)
            switch side {
            case .local:
                if let remote {
                    try tx.rebasePendingChange(collection, id: id, onto: remote, merged: nil)
                } else if let waiting = try tx.outboxEntry(collection, id: id), waiting.kind != .delete {
                    // Deleted on the server, kept here: push it again as a new record.
                    let tombstone = RemoteRecord(id: id, lastModified: 0, isDeleted: true, json: Data("{}".utf8))
                    try tx.rebasePendingChange(collection, id: id, onto: tombstone, merged: nil)
                }
            case .remote:
                if try tx.outboxEntry(collection, id: id) != nil {
                    try tx.discardLocalChange(collection, id: id)
                }
                let server = remote ?? RemoteRecord(id: id, lastModified: 0, isDeleted: true, json: Data("{}".utf8))
                _ = try tx.applyRemote(server, to: collection)
            }
            _ = try tx.removeConflict(collection, id: id)
        }
    }

    /// Puts a refused change back in the outbox for the next sync.
    public func retry(deadLetter id: Int64) throws {
        try store.write { tx in
            guard try tx.deadLetter(id: id) != nil else { throw ResolutionError.noDeadLetter(id) }
            _ = try tx.requeueDeadLetter(id: id)
        }
    }

    /// Forgets a refused change; the record stays as the server has it.
    public func discard(deadLetter id: Int64) throws {
        try store.write { tx in
            guard try tx.removeDeadLetter(id: id) else { throw ResolutionError.noDeadLetter(id) }
        }
    }

    private static func remoteRecord(_ conflict: Conflict) -> RemoteRecord? {
        guard let json = conflict.remote, let lastModified = conflict.remoteLastModified else { return nil }
        return RemoteRecord(id: conflict.recordID, lastModified: lastModified, json: json)
    }
}

// MARK: - ResolutionError

public enum ResolutionError: Error, Equatable, Sendable, CustomStringConvertible {
    case noConflict(collection: CollectionName, id: String)
    case noDeadLetter(Int64)

    public var description: String {
        switch self {
        case .noConflict(let collection, let id): "no conflict for \(collection.rawValue)/\(id)"
        case .noDeadLetter(let id): "no failed change with id \(id)"
        }
    }
}
