import Domain
import Foundation
import Synchronization

// MARK: - ShelfStore

/// One account's local store: records, outbox, base snapshots, sync state, conflicts,
/// dead letters and preferences in one SQLite database.
///
/// Every access goes through `read` or `write`, which hold the store's only connection
/// for the length of the block; several actors (repositories, the sync engine) can
/// share one store. Blocks run synchronously on the caller's thread: they are short
/// (an edit, a page of pulled records), and SQLite's own work is what takes the time.
///
/// Another process (the cron worker, a second CLI run) may open the same file: writes
/// wait up to `Configuration.busyTimeout` for each other, and readers never block
/// writers (WAL).
///
/// ## What always holds after a commit
/// - A record the server has never seen (`lastModified == nil`) has a `create` waiting.
/// - A record hidden by a local deletion has a `delete` waiting.
/// - A waiting `update` or `delete` has a base snapshot with the entry's base
///   `last_modified`, which is also the row's `lastModified`; a `create` has none.
/// - Every outbox entry has its record row (a foreign key enforces it).
/// The store's own operations keep these; `StorageTests` checks them after random
/// operation sequences and after a writer killed mid-transaction.
public final class ShelfStore: Sendable {
    public let location: StoreLocation
    let configuration: Configuration
    private let connection: Mutex<SQLiteConnection>
    /// What the operations recorded through this store say made them (`edit`).
    private let origin = Mutex("shelf")
    /// Why the reader's edits through this store are refused, when they are (`refuseEdits`).
    private let editRefusal = Mutex<(any Error & Sendable)?>(nil)

    // MARK: Opening

    /// Opens (creating when missing) an account's database in Shelf's data folder
    /// (`ShelfPaths.database`), with the folder 0700 and the files 0600: the one way a
    /// command or the worker opens an account's store to work on it.
    public convenience init(account: AccountName, paths: ShelfPaths, configuration: Configuration = Configuration()) throws(StorageError) {
        try FilePermissions.prepareDirectory(paths.dataDirectory, enforce: true)
        try self.init(location: paths.database(account), configuration: configuration)
    }

    /// Opens (creating when missing) the database at `location` and migrates it.
    /// - Throws: `StorageError.newerSchema` for a file from a newer Shelf, which is
    ///   left untouched; `.sqlite` or `.fileSystem` when it cannot be opened.
    public init(location: StoreLocation, configuration: Configuration = Configuration()) throws(StorageError) {
        let path = location.sqlitePath
        if case .file(let url) = location {
            try FilePermissions.prepareDirectory(url.deletingLastPathComponent(), enforce: false)
            try FilePermissions.createPrivateFile(path)
        }
        let connection = try SQLiteConnection(path: path)
        connection.setBusyTimeout(milliseconds: configuration.busyTimeoutMilliseconds)

        // NB: the version is read before anything writes, so a newer file stays byte
        // for byte as it was (switching to WAL would rewrite its header).
        let found = try SchemaMigrator.version(of: connection)
        guard found <= Schema.currentVersion else {
            throw .newerSchema(path: path, found: found, supported: Schema.currentVersion)
        }
        if case .file = location {
            try FilePermissions.restrictDatabaseFiles(path)
        }
        try Self.configure(connection, configuration)
        try SchemaMigrator.migrate(connection, path: path)
        // A bulk pull that was killed may have left the id and listing indexes out.
        try IdentityIndex.restoreBulkLoadIndexes(connection)

        self.location = location
        self.configuration = configuration
        self.connection = Mutex(connection)
    }

    /// Sets the connection's pragmas, switching a new file to WAL.
    ///
    /// NB: the switch to WAL takes a lock that SQLite may refuse at once, without waiting
    /// through the busy timeout (when waiting could deadlock with the other connection,
    /// or while that one recovers the WAL): a device's first `shelf-sync` and a `shelf`
    /// edit opening the same new store meet it about once in thirty tries. Retried here,
    /// every 20 ms, for as long as the busy timeout allows; then the busy error is thrown.
    private static func configure(_ connection: SQLiteConnection, _ configuration: Configuration) throws(StorageError) {
        let deadline = ContinuousClock.now + configuration.busyTimeout
        var attempt = 0
        while true {
            attempt += 1
            do throws(StorageError) {
                try configuration.faults.beforeConfigure?(attempt)
                try connection.execute("""
                    PRAGMA journal_mode = WAL;
                    PRAGMA synchronous = \(configuration.synchronous.rawValue);
                    PRAGMA foreign_keys = ON;
                    PRAGMA cache_size = -\(configuration.cacheKibibytes);
                    PRAGMA journal_size_limit = \(Self.walSizeLimit);
                    PRAGMA mmap_size = \(configuration.memoryMapBytes);
                    """, operation: "configure connection")
                return
            } catch {
                guard error.isBusy, ContinuousClock.now < deadline else { throw error }
                usleep(20_000)
            }
        }
    }

    /// The WAL is truncated back to this size after a checkpoint, so one big pull does
    /// not leave a file the size of the database behind.
    static let walSizeLimit = 8 * 1024 * 1024

    /// A fresh in-memory store, through the same code as a file (tests, previews).
    public static func inMemory(configuration: Configuration = Configuration()) throws(StorageError) -> ShelfStore {
        try ShelfStore(location: .memory, configuration: configuration)
    }

    // MARK: Transactions

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`): everything it does is
    /// committed together when it returns, and rolled back when it throws.
    ///
    /// Compose the sync engine's steps here, e.g. apply a pulled page and advance the
    /// cursor, or drop an outbox entry and store the server's version.
    /// - Important: do not call the store again from inside `body` (use `tx`); the
    ///   connection is held for the whole block.
    /// - Throws: what `body` throws, or `StorageError` when SQLite fails.
    @discardableResult
    public func write<Result: Sendable>(_ body: (StoreTransaction) throws -> Result) throws -> Result {
        try write(bulkLoad: nil, body)
    }

    /// `write` for a pulled page, which may go in as part of `bulkLoad` (see `BulkLoad`).
    ///
    /// Every other write transaction first builds the records' id index when a bulk load
    /// left it out (`IdentityIndex`): the outbox's foreign key and every upsert need it.
    @discardableResult
    public func write<Result: Sendable>(bulkLoad: BulkLoad?, _ body: (StoreTransaction) throws -> Result) throws -> Result {
        let clock = configuration.clock
        let faults = configuration.faults
        return try connection.withLock { connection throws -> Result in
            try connection.execute("BEGIN IMMEDIATE", operation: "begin write transaction")
            bulkLoad?.transactionBegan()
            let transaction = StoreTransaction(connection: connection, clock: clock, faults: faults, bulkLoad: bulkLoad)
            defer { transaction.finish() }
            do {
                if bulkLoad?.isLoading != true { try IdentityIndex.createIfMissing(connection) }
                let result = try body(transaction)
                try connection.execute("COMMIT", operation: "commit write transaction")
                bulkLoad?.transactionCommitted()
                return result
            } catch {
                Self.rollBack(connection)
                bulkLoad?.transactionRolledBack()
                throw error
            }
        }
    }

    // MARK: The reader's edits

    /// A reader's edit: `write`, whose local edits (`saveLocal`, `deleteLocal`) are
    /// recorded as one operation of the history in the same transaction
    /// (`StoreTransaction.recordOperation`), so a kill leaves both or neither.
    /// - Parameter reverts: the operation a selective undo takes back by this one.
    /// - Throws: the refusal `refuseEdits` set, before anything is read or written; what
    ///   `body` throws; `StorageError`.
    @discardableResult
    public func edit<Result: Sendable>(reverting reverts: Int64? = nil, _ body: (StoreTransaction) throws -> Result) throws -> Result {
        try editRecordingOperation(reverting: reverts, body).result
    }

    /// `edit`, saying which operation it recorded (nil when nothing changed).
    public func editRecordingOperation<Result: Sendable>(
        reverting reverts: Int64? = nil, _ body: (StoreTransaction) throws -> Result
    ) throws -> RecordedEdit<Result> {
        try checkEditsAllowed()
        let origin = self.origin.withLock { $0 }
        return try write { transaction in
            transaction.journal = OperationJournal()
            let result = try body(transaction)
            return RecordedEdit(result: result, operation: try transaction.recordOperation(origin: origin, reverts: reverts))
        }
    }

    /// Throws the refusal `refuseEdits` set, if any: for a reader's write that goes
    /// through `write` (an undo marks its operation rather than recording a new one).
    public func checkEditsAllowed() throws {
        if let refusal = editRefusal.withLock({ $0 }) { throw refusal }
    }

    /// Names what the operations recorded from now on come from: the command (`book
    /// edit`) or `ui`. A front sets it once, when it opens the store.
    public func setOperationOrigin(_ origin: String) {
        self.origin.withLock { $0 = origin }
    }

    /// From now on, every `edit` throws `refusal` and writes nothing: for a front that
    /// decided the reader may not write to this store now (an encrypted account on a
    /// device that holds no key). The sync engine's writes are not edits.
    public func refuseEdits(_ refusal: any Error & Sendable) {
        editRefusal.withLock { $0 = refusal }
    }

    /// Runs `body` against one consistent snapshot of the store (a read transaction),
    /// so several queries see the same state even while another process writes.
    public func read<Result: Sendable>(_ body: (StoreReader) throws -> Result) throws -> Result {
        try connection.withLock { connection throws -> Result in
            try connection.execute("BEGIN DEFERRED", operation: "begin read transaction")
            let reader = StoreReader(connection: connection)
            defer { reader.finish() }
            do {
                let result = try body(reader)
                try connection.execute("COMMIT", operation: "end read transaction")
                return result
            } catch {
                Self.rollBack(connection)
                throw error
            }
        }
    }

    /// `read` for a body that throws only `StorageError`, keeping the type.
    func readTyped<Result: Sendable>(_ body: (StoreReader) throws(StorageError) -> Result) throws(StorageError) -> Result {
        do {
            return try read { reader in try body(reader) }
        } catch let error as StorageError {
            throw error
        } catch {
            // NB: unreachable: `body` throws only StorageError and `read` adds only those.
            throw .corruptValue(what: "read result", reason: "\(error)")
        }
    }

    /// `write` for a body that throws only `StorageError`, keeping the type.
    func writeTyped<Result: Sendable>(_ body: (StoreTransaction) throws(StorageError) -> Result) throws(StorageError) -> Result {
        do {
            return try write { transaction in try body(transaction) }
        } catch let error as StorageError {
            throw error
        } catch {
            // NB: unreachable: `body` throws only StorageError and `write` adds only those.
            throw .corruptValue(what: "write result", reason: "\(error)")
        }
    }

    /// Runs `body` with the connection outside any transaction (checks, copies).
    func withConnection<Result: Sendable>(_ body: (SQLiteConnection) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try connection.withLock { (connection) throws(StorageError) -> Result in try body(connection) }
    }

    private static func rollBack(_ connection: SQLiteConnection) {
        // SQLite may already have rolled back (e.g. after SQLITE_FULL); a ROLLBACK outside
        // a transaction would fail, so only send one while a transaction is open.
        if !connection.isAutocommit {
            try? connection.execute("ROLLBACK", operation: "roll back")
        }
    }
}

// MARK: - Configuration

extension ShelfStore {
    public struct Configuration: Sendable {
        /// How long a write waits for another process's write lock before failing with
        /// `StorageError.isBusy`. Default 5 s: longer than any single sync page takes.
        public var busyTimeout: Duration
        /// Durability of commits. Default `.normal`: with WAL, a committed transaction
        /// survives a killed process; a power cut may lose the last ones, never
        /// consistency.
        public var synchronous: Synchronous
        /// The time stamped on outbox entries, conflicts and dead letters.
        public var clock: SyncClock
        /// SQLite's page cache for this connection, in KiB. Default 16 MiB: at 100,000
        /// records the indexes no longer fit SQLite's 2 MiB default, and a bulk insert
        /// then spends a fifth of its time re-reading pages from the OS.
        public var cacheKibibytes: Int
        /// How much of the database file reads may map into memory instead of copying
        /// pages through `read(2)` into the page cache. Default 0 (off): a sync writes
        /// more than it reads, and building the listing index after a bulk pull would
        /// map the whole table into its resident memory (a 100,000-book first sync would
        /// peak ~40 MB higher). A short-lived reader maps the file (`Configuration.reader`,
        /// 256 MiB): a search over 100,000 records then spends a third as long in the
        /// kernel, which a CLI run that opens the store cold pays on every start.
        ///
        /// NB: SQLite maps the file read-only and never writes through the map (it writes
        /// the WAL and checkpoints with `write(2)`), and it reads a page from the WAL
        /// instead of the map while a newer version of it waits there, so a `shelf-sync`
        /// writing at the same time is safe (SQLite documents memory-mapped I/O with WAL
        /// as supported). What changes is an I/O error on a mapped page: a `SIGBUS` that
        /// ends the process instead of an error SQLite returns. For a command that lives a
        /// few milliseconds that is acceptable: a write it was making is rolled back by
        /// the WAL as after a kill (nothing committed is lost), and the disk error it
        /// could not get past shows again at the next run. The worker, which runs for
        /// hours, keeps the default.
        public var memoryMapBytes: Int

        /// Failures injected between the steps of a store operation (tests only).
        var faults: FaultInjection = FaultInjection()

        public init(
            busyTimeout: Duration = .seconds(5), synchronous: Synchronous = .normal, cacheKibibytes: Int = 16 * 1024,
            memoryMapBytes: Int = 0, clock: SyncClock = .live
        ) {
            self.busyTimeout = busyTimeout
            self.synchronous = synchronous
            self.cacheKibibytes = cacheKibibytes
            self.memoryMapBytes = max(0, memoryMapBytes)
            self.clock = clock
        }

        /// For a process that mostly reads and then exits (the CLI): the file mapped.
        public static var reader: Configuration {
            Configuration(memoryMapBytes: 256 * 1024 * 1024)
        }

        var busyTimeoutMilliseconds: Int32 {
            let (seconds, attoseconds) = busyTimeout.components
            return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        }
    }

    /// SQLite's `PRAGMA synchronous` levels that keep a WAL database consistent.
    public enum Synchronous: String, Sendable {
        case normal = "NORMAL"
        /// Every commit is on disk before it returns (an fsync per transaction).
        case full = "FULL"
    }
}

// MARK: - FaultInjection

/// Points inside multi-step store operations where a test can make the operation fail,
/// to prove that the surrounding transaction leaves nothing half-written.
struct FaultInjection: Sendable {
    /// Called by local edits after the record row is written and before the outbox
    /// entry is; throwing aborts the edit.
    var afterRecordWrite: (@Sendable (CollectionName, String) throws(StorageError) -> Void)?
    /// Called before each attempt (1, 2, …) to configure a newly opened connection;
    /// throwing stands in for SQLite refusing the lock.
    var beforeConfigure: (@Sendable (Int) throws(StorageError) -> Void)?
}

// MARK: - Copying

extension ShelfStore {
    /// Writes a consistent copy of the whole database to a new file (`VACUUM INTO`),
    /// private to the user (0600). The target must not exist.
    public func copy(to target: URL) throws(StorageError) {
        try FilePermissions.prepareDirectory(target.deletingLastPathComponent(), enforce: false)
        try connection.withLock { (connection) throws(StorageError) in
            _ = try connection.run("VACUUM INTO ?", [.text(target.path)], operation: "copy the store to \(target.path)")
        }
        try FilePermissions.restrictDatabaseFiles(target.path)
    }
}
