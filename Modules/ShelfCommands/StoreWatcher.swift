import Storage

// MARK: - StoreWatcher

/// Tells a live screen that another process (a cron `shelf-sync`, `shelf` in another
/// terminal) committed to the account's store: SQLite's `PRAGMA data_version`, read every
/// `interval` off the main actor, changes only for other connections' commits, so polling
/// it costs one pragma and never reads a table.
struct StoreWatcher: Sendable {
    let store: ShelfStore
    /// A quarter of a second: a change shows well within a second, and an idle screen
    /// costs four pragmas a second.
    var interval: Duration = .milliseconds(250)

    /// Calls `changed` after each change seen, until the surrounding task is cancelled.
    /// A store that cannot answer is read again at the next tick: a watcher never ends the
    /// interface, and the screen's own reads report the failure.
    @concurrent
    func watch(_ changed: @escaping @Sendable () async -> Void) async {
        var last = try? store.dataVersion()
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            guard let version = try? store.dataVersion() else { continue }
            if version != last {
                last = version
                await changed()
            }
        }
    }
}
