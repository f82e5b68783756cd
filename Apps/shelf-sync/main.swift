import Foundation

// shelf-sync: the headless worker cron runs. Everything it does is wired in
// ShelfSyncWorker; the rules live in the Sync and Storage modules.
let status = await ShelfSyncWorker(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment
).run()
exit(status.rawValue)
