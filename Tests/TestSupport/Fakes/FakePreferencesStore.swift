import Domain
import Synchronization

// MARK: - FakePreferencesStore

/// A `PreferencesStore` in memory. Two instances sharing one `Storage` behave like two
/// launches of the app over the same preferences file, which is how tests check that
/// something survives a restart. Reads and writes can be made to fail.
public final class FakePreferencesStore: PreferencesStore {
    /// What a preferences file would hold.
    public struct Contents: Sendable, Equatable {
        public var favorites: Set<Book.ID> = []
        public var readingSettings: ReadingSettings = .default
        public var routerPath: [Route] = []
        public init() {}
    }

    /// The shared "file": pass one to several stores to model restarts.
    public final class Storage: Sendable {
        fileprivate let contents: Mutex<Contents>
        public init(_ contents: Contents = Contents()) {
            self.contents = Mutex(contents)
        }
        public var snapshot: Contents { contents.withLock { $0 } }
    }

    private struct Failures {
        var reads: (any Error)?
        var writes: (any Error)?
        var writeCount = 0
    }

    public let storage: Storage
    private let failures = Mutex(Failures())

    public init(storage: Storage = Storage()) {
        self.storage = storage
    }

    // MARK: Scripting

    /// Every later read throws `error` (nil: reads work again).
    public func failReads(with error: (any Error)?) {
        failures.withLock { $0.reads = error }
    }

    /// Every later write throws `error` and changes nothing (nil: writes work again).
    public func failWrites(with error: (any Error)?) {
        failures.withLock { $0.writes = error }
    }

    /// How many writes succeeded.
    public var writeCount: Int { failures.withLock { $0.writeCount } }

    // MARK: PreferencesStore

    public func favorites() throws -> Set<Book.ID> {
        try read(\.favorites)
    }

    public func setFavorites(_ ids: Set<Book.ID>) throws {
        try write(\.favorites, ids)
    }

    public func readingSettings() throws -> ReadingSettings {
        try read(\.readingSettings)
    }

    public func setReadingSettings(_ settings: ReadingSettings) throws {
        try write(\.readingSettings, settings)
    }

    public func routerPath() throws -> [Route] {
        try read(\.routerPath)
    }

    public func setRouterPath(_ path: [Route]) throws {
        try write(\.routerPath, path)
    }

    // MARK: Plumbing

    private func read<Field>(_ field: KeyPath<Contents, Field>) throws -> Field {
        if let error = failures.withLock({ $0.reads }) { throw error }
        return storage.snapshot[keyPath: field]
    }

    private func write<Field: Sendable>(_ field: WritableKeyPath<Contents, Field> & Sendable, _ value: Field) throws {
        try failures.withLock { failures in
            if let error = failures.writes { throw error }
            failures.writeCount += 1
        }
        storage.contents.withLock { $0[keyPath: field] = value }
    }
}
