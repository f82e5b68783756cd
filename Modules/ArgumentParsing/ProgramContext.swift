import Foundation

// MARK: - ProgramContext

/// What one run of a program starts with: its arguments, its environment, its working
/// directory, its console and its clock. `main.swift` passes the process's own
/// (`live()`); a test passes its own, and runs the program in-process.
public struct ProgramContext: Sendable {
    /// The arguments after the program's name.
    public var arguments: [String]
    public var environment: [String: String]
    /// Where relative paths on the command line start from.
    public var workingDirectory: String
    public var console: Console
    /// Now, for whatever the program stamps or shows (a man page's date, "synced 2 min ago").
    public var now: @Sendable () -> Date

    public init(
        arguments: [String], environment: [String: String], workingDirectory: String, console: Console,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.console = console
        self.now = now
    }

    /// The process's arguments, environment, working directory and standard streams.
    public static func live() -> ProgramContext {
        ProgramContext(
            arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
            workingDirectory: FileManager.default.currentDirectoryPath, console: .live)
    }

    /// `path` as an absolute path: itself when it is one, else under the working directory.
    public func absolutePath(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        return URL(fileURLWithPath: workingDirectory).appendingPathComponent(path).standardized.path
    }
}
