import Foundation

// MARK: - shelf
//
// Shelf's command-line front: parse, wire one account's dependencies, render
// Presentation's screens. Every rule lives in the modules.

let arguments = Array(CommandLine.arguments.dropFirst())

// NB: the version answers before anything is built: no parser, no store, no network.
if arguments == ["--version"] {
    Terminal.standardOutput("shelf \(Shelf.version)\n")
    exit(0)
}

Terminal.ignoreBrokenPipes()
let status = await CommandRunner(arguments: arguments, environment: ProcessInfo.processInfo.environment).run()
exit(status.rawValue)
