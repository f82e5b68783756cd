import WorkerCommands

// MARK: - shelf-sync
//
// The headless worker cron runs. Everything it does is in Modules/WorkerCommands,
// which wires Sync's worker parts; this runs it on the process.

await WorkerProgram.main()
