import ShelfCommands

// MARK: - shelf
//
// Shelf's command-line front. Every command lives in Modules/ShelfCommands, which
// parses, wires one account's dependencies and renders; this runs it on the process.

await ShelfProgram.main()
