import Records

// MARK: - PullMode

/// What a collection's pull is for.
enum PullMode {
    /// From where the collection is settled: what changed is merged with waiting edits.
    case ordinary
    /// The server forgot records (`ServerForgetting`): the collection is pulled from
    /// scratch and every id the server still has is noted, so that its last page
    /// queues the local records the server lacks (`SyncRules.requeueRecordsMissing`).
    case recovery(present: Set<String>)

    var isRecovery: Bool {
        if case .recovery = self { return true }
        return false
    }

    /// During a recovery, notes the ids of a page's live records (a skipped oversized
    /// one included: the server has it, so it is not uploaded again).
    mutating func note(_ page: [RawRecord]) {
        guard case .recovery(var present) = self else { return }
        present.formUnion(page.lazy.filter { !$0.isDeleted }.map(\.id))
        self = .recovery(present: present)
    }

    /// The ids a recovery noted so far; empty for an ordinary pull.
    var present: Set<String> {
        if case .recovery(let present) = self { return present }
        return []
    }
}
