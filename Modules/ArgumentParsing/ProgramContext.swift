import Foundation
import Vocabulary

// MARK: - ProgramContext

/// What one run of a program starts with: its arguments, its environment, its working
/// directory, its console and its clock. `main.swift` passes the process's own
/// (`live()`); a test passes its own, and runs the program in-process.
public struct ProgramContext: Sendable {
    /// The arguments after the program's name.
    public var arguments: [String]
    /// The positions (1 for the first after the program's name) of the arguments whose
    /// bytes are not UTF-8. `arguments` holds them repaired (U+FFFD for each bad byte),
    /// so a program refuses the line rather than store text it was not given
    /// (`CommandLineProgram.start`).
    public var undecodableArguments: [Int]
    public var environment: [String: String]
    /// Where relative paths on the command line start from.
    public var workingDirectory: String
    public var console: Console
    /// The one clock of the run, for whatever the program stamps, shows or waits for (a
    /// man page's date, "synced 2 min ago", a sync's budget): handed down to the store,
    /// the repositories and the engine, so a test's clock is the one every layer reads.
    public var clock: SyncClock

    public init(
        arguments: [String], environment: [String: String], workingDirectory: String, console: Console,
        clock: SyncClock = .live, undecodableArguments: [Int] = []
    ) {
        self.arguments = arguments
        self.undecodableArguments = undecodableArguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.console = console
        self.clock = clock
    }

    /// The process's arguments, environment, working directory and standard streams.
    public static func live() -> ProgramContext {
        ProgramContext(
            arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
            workingDirectory: FileManager.default.currentDirectoryPath, console: .live,
            undecodableArguments: undecodableProcessArguments())
    }

    /// The positions of the process's arguments that are not UTF-8, read from the bytes
    /// the kernel passed (`CommandLine.arguments` repairs them silently).
    static func undecodableProcessArguments() -> [Int] {
        var positions: [Int] = []
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
            if String(validating: bytes, as: UTF8.self) == nil { positions.append(index) }
        }
        return positions
    }

    /// `path` as an absolute path: itself when it is one, else under the working directory.
    public func absolutePath(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        return URL(fileURLWithPath: workingDirectory).appendingPathComponent(path).standardized.path
    }
}
