import Domain
import Foundation
import Records
import Storage

// MARK: - OperationHistory

/// The reader's history of operations (`shelf history`), what of it the server has not
/// seen yet (`shelf pending`), and taking one step back or forward (`shelf undo`,
/// `shelf redo`).
///
/// Every local write the reader makes is one operation, recorded with its records'
/// versions before and after in the write's own transaction (`ShelfStore.edit`). Undo
/// takes back the last operation in effect, field by field: each field the operation
/// changed is set back to what it was, the other fields (a later operation's, another
/// device's) stay. Redo puts the last operation undone back; a new operation makes the
/// undone ones go. An undo or redo is a local write like any other: it goes to the
/// server with the next sync (nothing does when a record comes back exactly as the
/// server has it: its waiting change is dropped instead).
///
/// What needs the reader's yes is said before anything is written (`plan…`, then
/// `carryOut`): a record the undo removes, a field changed since the operation (by a
/// later one, or by a sync) whose change would be lost, a record removed since that
/// would come back. `carryOut` judges the plan again inside its transaction and
/// refuses (`UndoError.changedMeanwhile`) when the answer is not the one confirmed.
public struct OperationHistory: Sendable {
    public let store: ShelfStore

    public init(store: ShelfStore) {
        self.store = store
    }

    // MARK: Reading

    /// Every operation the history holds, oldest first.
    public func entries() throws -> [HistoryEntry] {
        try store.read { reader in try Self.entries(in: reader) }
    }

    /// What the next sync sends: the operations in effect whose changes have not all
    /// reached the server (oldest first: the last is what `undo` takes back), the waiting
    /// changes no operation holds, and every waiting change per record.
    public func pending() throws -> PendingWork {
        try store.read { reader in
            let operations = try Self.entries(in: reader).filter {
                $0.state == .done && $0.delivery != .synced && $0.delivery != .unknown
            }
            let changes = try UnsyncedChanges.list(in: reader)
            let held = Set(try operations.flatMap { entry in
                try reader.operationChanges(entry.operation).compactMap(\.outboxSequence)
            })
            return PendingWork(operations: operations, outside: changes.filter { !held.contains($0.sequence) }, changes: changes)
        }
    }

    // MARK: Planning

    /// What undoing `target` would do.
    /// - Throws: `UndoError` when there is nothing to undo, the target cannot be found or
    ///   cannot be taken back (too large to have been kept, held by a conflict, a book
    ///   others refer to).
    public func planUndo(_ target: UndoTarget) throws -> UndoPlan {
        try store.read { reader in
            let subject = try Self.subject(of: target, in: reader)
            return try Self.evaluate(subject, .undo, in: reader).plan
        }
    }

    /// What redoing the last operation undone would do.
    /// - Throws: `UndoError.nothingToRedo`.
    public func planRedo() throws -> UndoPlan {
        try store.read { reader in
            guard let operation = try reader.firstUndoneOperation() else { throw UndoError.nothingToRedo }
            return try Self.evaluate(.operation(operation.sequence, selective: false), .redo, in: reader).plan
        }
    }

    // MARK: Carrying out

    /// Does what `plan` says, in one transaction: the records, the outbox and the
    /// operation's state (or, for a selective undo, the operation that reverts it).
    /// - Throws: `UndoError.changedMeanwhile` (nothing written) when the store changed
    ///   since the plan so that it needs another yes; `UndoError.referenced` for a book's
    ///   removal that notes or sessions refer to; the store's refusal of edits.
    public func carryOut(_ plan: UndoPlan) throws -> UndoOutcome {
        try store.checkEditsAllowed()
        switch plan.subject {
        case .unsyncedChanges(let collection, let id):
            return try store.write { tx in
                try Self.confirm(plan, against: Self.evaluate(plan.subject, plan.direction, in: tx).plan)
                let discarded = try UnsyncedChanges.discard(collection, id: id, in: tx)
                return UndoOutcome(
                    direction: .undo, entry: nil,
                    records: [.init(collection: collection, id: id, label: discarded.label,
                                    outcome: discarded.outcome == .removed ? .removed : .restored, fields: [])],
                    revertedBy: nil, canRedo: false)
            }
        case .operation(let sequence, selective: true):
            let edit = try store.editRecordingOperation(reverting: sequence) { tx in
                let (fresh, steps) = try Self.evaluate(plan.subject, plan.direction, in: tx)
                try Self.confirm(plan, against: fresh)
                guard try tx.operation(sequence)?.state == .done else { throw UndoError.changedMeanwhile(fresh) }
                return (fresh.entry, try Self.apply(steps, in: tx))
            }
            return UndoOutcome(direction: .undo, entry: edit.result.0, records: edit.result.1, revertedBy: edit.operation, canRedo: false)
        case .operation(let sequence, selective: false):
            return try store.write { tx in
                let (fresh, steps) = try Self.evaluate(plan.subject, plan.direction, in: tx)
                try Self.confirm(plan, against: fresh)
                // NB: still the last in effect (or the first undone): undo and redo walk one line.
                let next = plan.direction == .undo ? try tx.lastDoneOperation() : try tx.firstUndoneOperation()
                guard next?.sequence == sequence else { throw UndoError.changedMeanwhile(fresh) }
                let records = try Self.apply(steps, in: tx)
                try tx.setOperationState(sequence, plan.direction == .undo ? .undone : .done)
                if plan.direction == .redo {
                    for change in try tx.operationChanges(sequence) {
                        try tx.setOutboxSequence(
                            of: sequence, position: change.position, to: try tx.outboxEntry(change.collection, id: change.recordID)?.sequence)
                    }
                }
                var entry = fresh.entry
                entry?.state = plan.direction == .undo ? .undone : .done
                return UndoOutcome(direction: plan.direction, entry: entry, records: records, revertedBy: nil, canRedo: plan.direction == .undo)
            }
        }
    }

    /// - Throws: `UndoError.changedMeanwhile` unless `fresh` needs exactly the yes `plan` got.
    private static func confirm(_ plan: UndoPlan, against fresh: UndoPlan) throws {
        guard fresh.subject == plan.subject, fresh.warnings == plan.warnings else { throw UndoError.changedMeanwhile(fresh) }
    }
}

// MARK: - PendingWork

/// What `shelf pending` lists.
public struct PendingWork: Hashable, Sendable {
    /// The operations in effect not synced yet, oldest first.
    public var operations: [HistoryEntry]
    /// Waiting changes that no operation of the history holds (made before it, by a
    /// conflict's resolution, a retried failed change, or gone from it).
    public var outside: [UnsyncedChange]
    /// Every waiting change, one per record: what the next sync sends.
    public var changes: [UnsyncedChange]

    public init(operations: [HistoryEntry], outside: [UnsyncedChange], changes: [UnsyncedChange]) {
        self.operations = operations
        self.outside = outside
        self.changes = changes
    }
}

// MARK: - Entries

extension OperationHistory {
    static func entries(in reader: StoreReader) throws -> [HistoryEntry] {
        let outbox = try reader.outboxDelivery()
        let conflicted = Set(try reader.conflicts().map { "\($0.collection.rawValue)/\($0.recordID)" })
        return try reader.operations().map { operation in
            try entry(operation, changes: try reader.operationChanges(operation.sequence), outbox: outbox, conflicted: conflicted)
        }
    }

    static func entry(
        _ operation: RecordedOperation, changes: [RecordedChange], outbox: [Int64: OutboxDelivery], conflicted: Set<String>
    ) throws -> HistoryEntry {
        var delivery = HistoryEntry.Delivery.synced
        if !operation.isComplete {
            delivery = .unknown
        } else {
            for change in changes {
                guard let sequence = change.outboxSequence, let waiting = outbox[sequence] else { continue }
                if conflicted.contains("\(waiting.collection.rawValue)/\(waiting.recordID)") {
                    delivery = .conflict
                } else if waiting.isInFlight, delivery != .conflict {
                    delivery = .sent
                } else if delivery == .synced {
                    delivery = .waiting
                }
            }
        }
        return HistoryEntry(
            operation: operation.sequence, madeAt: operation.madeAt, origin: operation.origin,
            state: operation.state == .done ? .done : .undone, delivery: delivery, reverts: operation.reverts,
            isUndoable: operation.isComplete, records: try changes.map(record), recordCount: operation.records,
            tally: operation.tally.mapValues { HistoryEntry.Tally(added: $0.added, changed: $0.changed, removed: $0.removed) })
    }

    private static func record(_ change: RecordedChange) throws -> HistoryRecord {
        var kind: HistoryRecord.Change = change.before == nil ? .added : change.after == nil ? .removed : .changed
        // NB: the reader's one preferences record is not added or removed for them: its
        // fields (a favorite, a setting) are what changed.
        if change.collection == .preferences { kind = .changed }
        var fields: [String] = []
        if kind == .changed {
            let before = try content(change.before), after = try content(change.after)
            fields = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
                .map { shownField($0, in: change.collection) }
        }
        return HistoryRecord(
            collection: change.collection, id: change.recordID,
            label: RecordLabel.of(change.after ?? change.before, in: change.collection), change: kind, fields: fields)
    }
}

// MARK: - Finding what to undo

extension OperationHistory {
    /// What `target` names: an operation (the last in effect, an older one, or the last
    /// that changed a record) or a record's unsynced changes outside the history.
    static func subject(of target: UndoTarget, in reader: StoreReader) throws -> UndoPlan.Subject {
        let last = try reader.lastDoneOperation()
        switch target {
        case .last:
            guard let last else {
                let outside = try reader.pendingCount()
                throw outside == 0 ? UndoError.nothingToUndo : UndoError.nothingInHistory(waiting: outside)
            }
            return .operation(last.sequence, selective: false)
        case .operation(let sequence):
            guard let operation = try reader.operation(sequence) else { throw UndoError.noOperation(sequence) }
            guard operation.state == .done else { throw UndoError.alreadyUndone(sequence) }
            return .operation(sequence, selective: sequence != last?.sequence)
        case .record(let collection, let reference):
            let (collection, id) = try locate(reference, in: collection, reader: reader)
            if let operation = try reader.lastOperation(touching: collection, id: id) {
                return .operation(operation.sequence, selective: operation.sequence != last?.sequence)
            }
            guard try reader.outboxEntry(collection, id: id) != nil else {
                throw UndoError.noChange(collection: collection, id: id)
            }
            return .unsyncedChanges(collection, id)
        }
    }

    /// The record a reference names among those the history changed and those with a
    /// waiting change: its full id, else a unique prefix of at least
    /// `ShortID.minimumTypedLength` characters.
    private static func locate(
        _ reference: String, in collection: CollectionName?, reader: StoreReader
    ) throws -> (CollectionName, String) {
        var known: [(collection: CollectionName, id: String)] = try reader.recordsInHistory()
        for change in try reader.pendingChanges(skippingConflicts: false) {
            known.append((change.entry.collection, change.entry.recordID))
        }
        var seen: Set<String> = []
        known = known.filter { (collection == nil || $0.collection == collection) && seen.insert("\($0.collection.rawValue)/\($0.id)").inserted }
        var matches = known.filter { $0.id == reference }
        if matches.isEmpty {
            matches = known.filter { $0.id.hasPrefix(reference) }
            if !matches.isEmpty, reference.utf8.count < ShortID.minimumTypedLength { throw UndoError.tooShort(reference) }
        }
        guard let match = matches.first else { throw UndoError.noChange(collection: collection, id: reference) }
        guard matches.count == 1 else {
            throw UndoError.ambiguous(reference: reference, candidates: matches.map { "\($0.collection.rawValue)/\($0.id)" })
        }
        return (match.collection, match.id)
    }
}

// MARK: - Judging

extension OperationHistory {
    /// One record's part of an undo or redo.
    struct Step {
        enum Action {
            /// Nothing to do: the record already is as the step would leave it.
            case none
            case remove
            /// Write these fields (the store's bookkeeping is kept where the record has it).
            case write([String: JSONValue], outcome: UndoOutcome.RecordOutcome, fields: [String])
        }

        let collection: CollectionName
        let id: String
        let label: String?
        let action: Action
    }

    /// The plan for `subject`, with the steps that carry it out, read from the store as it is now.
    static func evaluate(
        _ subject: UndoPlan.Subject, _ direction: UndoPlan.Direction, in reader: StoreReader
    ) throws -> (plan: UndoPlan, steps: [Step]) {
        switch subject {
        case .unsyncedChanges(let collection, let id):
            let record = try UnsyncedChanges.checkDiscardable(collection, id: id, in: reader)
            var warnings = [UndoWarning.discardsUnsyncedChanges(record.record)]
            if record.removes { warnings.append(.removes(record.record)) }
            return (UndoPlan(direction: .undo, subject: subject, entry: nil, warnings: warnings), [])
        case .operation(let sequence, _):
            guard let operation = try reader.operation(sequence) else { throw UndoError.noOperation(sequence) }
            let changes = try reader.operationChanges(sequence)
            let entry = try entry(
                operation, changes: changes, outbox: try reader.outboxDelivery(),
                conflicted: Set(try reader.conflicts().map { "\($0.collection.rawValue)/\($0.recordID)" }))
            guard operation.isComplete else { throw UndoError.tooLarge(entry) }
            var warnings: [UndoWarning] = []
            var steps: [Step] = []
            for change in direction == .undo ? changes.reversed() : changes {
                steps.append(try step(change, operation: operation, direction, warnings: &warnings, in: reader))
            }
            return (UndoPlan(direction: direction, subject: subject, entry: entry, warnings: warnings), steps)
        }
    }

    /// What undoing (or redoing) one record's change takes, and what of it needs a yes.
    private static func step(
        _ change: RecordedChange, operation: RecordedOperation, _ direction: UndoPlan.Direction,
        warnings: inout [UndoWarning], in reader: StoreReader
    ) throws -> Step {
        let (collection, id) = (change.collection, change.recordID)
        let from = direction == .undo ? change.after : change.before
        let to = direction == .undo ? change.before : change.after
        let row = try reader.record(collection, id: id, includingDeleted: true)
        let current = row.flatMap { $0.isDeleted ? nil : $0.json }
        let label = RecordLabel.of(to ?? from ?? current, in: collection)
        let record = UndoError.Record(collection: collection, id: id, label: label)
        if try reader.conflict(collection, id: id) != nil { throw UndoError.inConflict(record) }
        let by = { try changedBy(collection, id: id, after: operation.sequence, in: reader) }
        var (fromFields, toFields, nowFields) = (try fields(from), try fields(to), try fields(current))
        if collection == .preferences {
            // NB: the reader's one preferences record stands for its fields (a favorite, a
            // setting): no record is one with none, so an undo sets fields back and never
            // removes the record or brings it back.
            let none: [String: JSONValue] = ["id": .string(id)]
            (fromFields, toFields, nowFields) = (fromFields ?? none, toFields ?? none, nowFields ?? none)
        }

        switch (toFields, nowFields) {
        case (nil, nil):
            return Step(collection: collection, id: id, label: label, action: .none)
        case (nil, let now?):
            if content(now) != content(fromFields ?? [:]) {
                warnings.append(.removesChangedSince(record, by: try by()))
            } else if direction == .undo {
                warnings.append(.removes(record))
            }
            return Step(collection: collection, id: id, label: label, action: .remove)
        case (let target?, nil):
            if fromFields != nil { warnings.append(.bringsBack(record, by: try by())) }
            return Step(collection: collection, id: id, label: label, action: .write(content(target), outcome: .restored, fields: []))
        case (let target?, let now?):
            guard let old = fromFields else {
                // The record was not there after the operation, and is now: it is set whole.
                let differing = differingFields(content(now), content(target))
                guard !differing.isEmpty else { return Step(collection: collection, id: id, label: label, action: .none) }
                let source = try by()
                for field in differing {
                    warnings.append(.overwrites(
                        record, field: shownField(field, in: collection), now: shown(now[field]), becomes: shown(target[field]), by: source))
                }
                return Step(collection: collection, id: id, label: label,
                            action: .write(bookkeeping(now).merging(content(target)) { _, new in new }, outcome: .restored, fields: []))
            }
            var written = now
            var setBack: [String] = []
            for field in differingFields(content(old), content(target)) where now[field] != target[field] {
                if now[field] != old[field] {
                    warnings.append(.overwrites(
                        record, field: shownField(field, in: collection), now: shown(now[field]), becomes: shown(target[field]),
                        by: try by()))
                }
                written[field] = target[field]
                setBack.append(shownField(field, in: collection))
            }
            guard !setBack.isEmpty else { return Step(collection: collection, id: id, label: label, action: .none) }
            return Step(collection: collection, id: id, label: label, action: .write(written, outcome: .changed, fields: setBack))
        }
    }

    /// Who changed a record after operation `sequence`: the later operations in effect
    /// that did, else a sync (or a decision that settled a conflict or a failed change).
    private static func changedBy(_ collection: CollectionName, id: String, after sequence: Int64, in reader: StoreReader) throws -> String {
        let later = try reader.laterOperations(touching: collection, id: id, after: sequence)
        guard !later.isEmpty else { return "by a sync (or a settled conflict)" }
        return "by " + later.map { "#\($0.sequence) (\($0.origin))" }.joined(separator: ", ")
    }

    // MARK: Doing

    /// Writes the steps through the store's local edits, so each record and its outbox
    /// entry change together; a record back exactly as the server last had it drops its
    /// waiting change instead of sending it.
    static func apply(_ steps: [Step], in tx: StoreTransaction) throws -> [UndoOutcome.Record] {
        try steps.map { step in
            let (collection, id) = (step.collection, step.id)
            switch step.action {
            case .none:
                return .init(collection: collection, id: id, label: step.label, outcome: .unchanged, fields: [])
            case .remove:
                if collection == .books {
                    let references = try tx.references(toBook: id)
                    guard references.isEmpty else {
                        throw UndoError.referenced(.init(collection: collection, id: id, label: step.label), references)
                    }
                }
                try tx.deleteLocal(collection, id: id)
                return .init(collection: collection, id: id, label: step.label, outcome: .removed, fields: [])
            case .write(var fields, let outcome, let changed):
                ServerOwnedFields.removeStamp(from: &fields)
                fields["id"] = .string(id)
                try tx.saveLocal(collection, id: id, json: try WireJSON.data(fields))
                try settle(collection, id: id, in: tx)
                return .init(collection: collection, id: id, label: step.label, outcome: outcome, fields: changed)
            }
        }
    }

    /// Drops a waiting update or deletion whose record is back as the server last had
    /// it: the next sync has nothing to send for it. So goes a preferences record created
    /// here and left with no field: the server never needs to hear of it.
    private static func settle(_ collection: CollectionName, id: String, in tx: StoreTransaction) throws {
        guard let entry = try tx.outboxEntry(collection, id: id), !entry.isInFlight, let row = try tx.record(collection, id: id) else {
            return
        }
        let now = content(try fields(row.json) ?? [:])
        if entry.kind == .create, collection == .preferences, now.isEmpty, try tx.base(collection, id: id) == nil {
            try tx.deleteLocal(collection, id: id)
            return
        }
        guard entry.kind != .create, let base = try tx.base(collection, id: id), now == content(try fields(base.json) ?? [:]) else { return }
        try SyncRules(tx).discardLocalChange(collection, id: id)
    }

    // MARK: Fields

    /// A version's fields; nil for no record.
    private static func fields(_ json: Data?) throws -> [String: JSONValue]? {
        guard let json else { return nil }
        do {
            return try WireJSON.fields(json)
        } catch {
            throw StorageError.corruptValue(what: "a record's stored JSON", reason: "not a JSON object")
        }
    }

    /// The reader's fields of a version: without what the server and the sync keep.
    static func content(_ json: Data?) throws -> [String: JSONValue] {
        content(try fields(json) ?? [:])
    }

    private static func content(_ fields: [String: JSONValue]) -> [String: JSONValue] {
        fields.filter { !ThreeWayMerge.bookkeepingFields.contains($0.key) }
    }

    private static func bookkeeping(_ fields: [String: JSONValue]) -> [String: JSONValue] {
        fields.filter { ThreeWayMerge.bookkeepingFields.contains($0.key) }
    }

    private static func differingFields(_ a: [String: JSONValue], _ b: [String: JSONValue]) -> [String] {
        Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted()
    }

    /// A field's name as a person reads it: the wire name, except the preferences'
    /// `favorite:<book id>` (`favorite <book id>`).
    static func shownField(_ name: String, in collection: CollectionName) -> String {
        guard collection == .preferences, name.hasPrefix(PreferenceFields.favoritePrefix) else { return name }
        return "favorite " + name.dropFirst(PreferenceFields.favoritePrefix.count)
    }

    /// A field's value as a person reads it in a warning.
    static func shown(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: return "nothing"
        case .string(let text)?: return "\"\(text)\""
        case .bool(let flag)?: return flag ? "true" : "false"
        case .number(let number)?: return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case let other?: return (try? JSONEncoder().encode(other)).map { String(decoding: $0, as: UTF8.self) } ?? "a value"
        }
    }
}
