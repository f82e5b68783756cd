import Domain
import Foundation
import Records
import Storage

// MARK: - SyncRules

/// The rules that decide what the server's answers and records do to the local store,
/// all in one place: Sync decides, Storage stores.
///
/// Each rule runs inside the caller's `ShelfStore.write` transaction and uses only the
/// store's plain primitives (`writeRecord`, `storePulled`, `writeBase`, `writeOutbox`,
/// `markSent`, …), so a rule and its bookkeeping commit together or not at all.
///
/// | step | rule | file |
/// |---|---|---|
/// | a pulled record or page | `applyPulled`, deciding by `PulledRecordsPlan` | SyncRules+Pulled.swift, PulledRecordsPlan.swift |
/// | a change goes out | `markSent`, deciding by `SendingPlan` | SyncRules+Sent.swift |
/// | a batch's answers | read by `PushBatchAnswer` into `PushAnswer`s, before any is stored | PushAnswer.swift |
/// | the server has a pushed change | `acknowledgePush`, deciding by `AcknowledgementPlan` | SyncRules+Acknowledgement.swift |
/// | a waiting change meets a newer server version | `rebasePendingChange`, `discardLocalChange` | SyncRules+Rebase.swift |
/// | the server forgot records | `startRecovery`, a page by `RecoveryPagePlan`, `keepNewerLocalVersion`, `requeueRecordsMissing` | SyncRules+Recovery.swift, RecoveryPagePlan.swift |
/// | a change refused for good | `moveToDeadLetters` | SyncRules+DeadLetters.swift |
/// | a deletion the server acknowledged | `rememberDeletion`; a stale copy: `PulledRecordsPlan` | SyncRules+AcknowledgedDeletions.swift, PulledRecordsPlan.swift |
/// | a record of an encrypted account still in the clear | `sealAgain` | SyncRules+Encryption.swift |
/// | an update another device overwrote unseen | `rememberWrite`, `reopen` | SyncRules+AcknowledgedWrites.swift |
///
/// The merge itself (what a waiting change and a pulled version become) is
/// `MergeApplier` and `ThreeWayMerge`; local edits (what an edit queues) stay with the
/// store, which the repositories write through.
public struct SyncRules {
    let tx: StoreTransaction

    /// The rules, applied in `tx`.
    public init(_ tx: StoreTransaction) {
        self.tx = tx
    }
}
