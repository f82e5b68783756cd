import Foundation
import Storage

// MARK: - Writes on a device without the key

// An encrypted account on a device that holds no key (it never joined, or was locked):
// every write the reader makes there is refused the same way, with the reason and the
// way out, and nothing is written — `book add` as `import`.
//
// Why refused rather than queued: an import names its records by keyed ids (a keyed
// hash of `gr-<Book Id>` under the account's key, so the server learns nothing from an
// id and importing a file again adds nothing), and without the key this device can
// neither make those ids nor send the plain ones, which ids are never sealed. Allowing
// other writes while refusing imports would make the rule depend on the command; one
// rule, said once, is what a reader can rely on. Reading stays: the local store is the
// reader's own.

extension AccountSession {
    /// Refuses the reader's edits through this session's store when the account is
    /// encrypted and this device holds no key (`ShelfStore.refuseEdits`).
    ///
    /// NB: never in the way of a read: a store whose state cannot be read is left to the
    /// command, which says what is wrong with it when it reads or writes.
    func refuseEditsWithoutTheKey() {
        guard case .account(let account) = selection,
              (try? store.read({ try $0.encryptionState() }))?.isEnabled == true,
              !FileManager.default.fileExists(atPath: paths.keyFile(account.name).path)
        else { return }
        store.refuseEdits(CommandFailure(.configuration, """
            account \(account.name) is encrypted end to end and this device holds no key, so nothing can be written here \
            (the records it writes must be sealed and named with the key): run 'shelf encryption join' first; \
            nothing was written
            """))
    }
}
