import Domain

// MARK: - FakeDecisions

/// The reader's decisions over an in-memory list: conflicts, refused changes and waiting
/// changes, each a plain string. Every call is logged; a queued reply (a failure or a
/// gate) answers the next load or write instead.
public actor FakeDecisions: ConflictService, FailedChangeService, PendingChangeService, LibraryImporting {
    public typealias Conflict = String
    public typealias Detail = String
    public typealias Decisions = String
    public typealias Resolution = String
    public typealias FailedChange = Int64
    public typealias Pending = [String]
    public typealias Entry = String
    public typealias Step = FakeUndoStep
    public typealias Done = String
    public typealias Plan = Int

    public private(set) var conflictList: [String]
    public private(set) var failed: [Int64]
    /// The operations waiting, oldest first (each a record id).
    public private(set) var pending: [String]
    /// The operations undone, the next to redo last.
    public private(set) var undone: [String] = []
    /// What undoing or redoing an operation needs a yes for, by its id.
    public var confirmationReasons: [String: [String]] = [:]
    /// Every write, in order: "resolve books/b-1 local", "retry 3", "undo b-1", "redo b-1", "import 2 rows".
    public private(set) var writes: [String] = []

    private var loadReplies = ReplyQueue<Void>()
    private var writeReplies = ReplyQueue<Void>()

    public init(conflicts: [String] = [], failed: [Int64] = [], pending: [String] = []) {
        conflictList = conflicts
        self.failed = failed
        self.pending = pending
    }

    // MARK: Scripting

    /// The next load waits at this reply (a gate) or fails with it.
    public func enqueueLoad(_ reply: FakeReply<Void>) {
        loadReplies.enqueue(reply)
    }

    /// The next write waits at this reply (a gate) or fails with it before changing anything.
    public func enqueueWrite(_ reply: FakeReply<Void>) {
        writeReplies.enqueue(reply)
    }

    // MARK: ConflictService

    public func conflicts() async throws -> [String] {
        try await loadReplies.next()?.resolve()
        return conflictList
    }

    public func locateConflict(_ reference: String, in collection: CollectionName?) async throws -> (collection: CollectionName, id: String) {
        guard let found = conflictList.first(where: { $0.hasPrefix(reference) }) else { throw FakeError("no conflict '\(reference)'") }
        return (collection ?? .books, found)
    }

    public func conflictDetail(_ collection: CollectionName, id: String) async throws -> String {
        "\(collection.rawValue)/\(id): title clashes"
    }

    public func resolve(_ collection: CollectionName, id: String, _ decisions: String) async throws -> String {
        writes.append("resolve \(collection.rawValue)/\(id) \(decisions)")
        try await writeReplies.next()?.resolve()
        conflictList.removeAll { $0 == id }
        return "kept \(decisions)"
    }

    // MARK: FailedChangeService

    public func failedChanges() async throws -> [Int64] {
        try await loadReplies.next()?.resolve()
        return failed
    }

    public func retry(failedChange id: Int64) async throws {
        writes.append("retry \(id)")
        try await writeReplies.next()?.resolve()
        failed.removeAll { $0 == id }
    }

    public func discard(failedChange id: Int64) async throws {
        writes.append("discard \(id)")
        try await writeReplies.next()?.resolve()
        failed.removeAll { $0 == id }
    }

    // MARK: PendingChangeService

    public func pendingChanges() async throws -> [String] {
        try await loadReplies.next()?.resolve()
        return pending
    }

    public func history() async throws -> [String] {
        try await loadReplies.next()?.resolve()
        return pending + undone.reversed().map { "\($0) (undone)" }
    }

    /// Says what needs a yes before `undo` of `id` or its `redo`.
    public func requireConfirmation(of id: String, _ reasons: [String]) {
        confirmationReasons[id] = reasons
    }

    public func planUndo(_ target: UndoTarget) async throws -> FakeUndoStep {
        let id: String? = switch target {
        case .last: pending.last
        case .record(_, let id): pending.first { $0 == id }
        case .operation(let index): pending.indices.contains(Int(index)) ? pending[Int(index)] : nil
        }
        guard let id else { throw FakeError("nothing to undo") }
        return FakeUndoStep(id: id, isRedo: false, confirmationReasons: confirmationReasons[id] ?? [])
    }

    public func planRedo() async throws -> FakeUndoStep {
        guard let id = undone.last else { throw FakeError("nothing to redo") }
        return FakeUndoStep(id: id, isRedo: true, confirmationReasons: confirmationReasons[id] ?? [])
    }

    public func carryOut(_ step: FakeUndoStep) async throws -> String {
        writes.append("\(step.isRedo ? "redo" : "undo") \(step.id)")
        try await writeReplies.next()?.resolve()
        if step.isRedo {
            undone.removeAll { $0 == step.id }
            pending.append(step.id)
        } else {
            pending.removeAll { $0 == step.id }
            undone.append(step.id)
        }
        return step.id
    }

    // MARK: LibraryImporting

    public func importLibrary(_ plan: Int, file: String, dryRun: Bool, progress: @escaping @Sendable (Int, Int) -> Void) async throws -> ImportReport {
        writes.append("import \(plan) rows\(dryRun ? " (dry run)" : "")")
        try await writeReplies.next()?.resolve()
        progress(plan, plan)
        return ImportReport(file: file, format: .shelf, dryRun: dryRun, rows: plan, collections: [:], issues: [])
    }
}

// MARK: - FakeUndoStep

/// An undo or redo `FakeDecisions` judged: which operation, and what it needs a yes for.
public struct FakeUndoStep: ConfirmableChange, Hashable {
    public let id: String
    public let isRedo: Bool
    public let confirmationReasons: [String]
}
