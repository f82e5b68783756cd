// MARK: - MergedRecord

/// What the merge did with one record a waiting local change held: reported as an event
/// and counted (`SyncRun.record(_:in:)`).
struct MergedRecord {
    let id: String
    let result: MergeApplier.Result
}
