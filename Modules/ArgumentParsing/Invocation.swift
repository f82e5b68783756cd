// MARK: - Invocation

/// A command line that matched the spec: which command, with which values.
public struct Invocation: Sendable, Equatable {
    /// Command names from the root, e.g. `["shelf", "book", "add"]`.
    public var path: [String]
    /// Option values by long name; a repeated option keeps its last value.
    public var options: [String: String]
    /// Every value of each option, in order, for options that may be given more than
    /// once (`--collection books --collection notes`).
    public var repeatedOptions: [String: [String]] = [:]
    public var flags: Set<String>
    /// Positional arguments by name.
    public var arguments: [String: String]
    /// `-h`/`--help` was given (or `help <command>` at the root): show help for `path`.
    public var wantsHelp: Bool

    public init(
        path: [String], options: [String: String] = [:], flags: Set<String> = [],
        arguments: [String: String] = [:], wantsHelp: Bool = false
    ) {
        self.path = path
        self.options = options
        repeatedOptions = options.mapValues { [$0] }
        self.flags = flags
        self.arguments = arguments
        self.wantsHelp = wantsHelp
    }

    /// The path without the root's name: `"book add"`.
    public var command: String { path.dropFirst().joined(separator: " ") }

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func option(_ name: String) -> String? { options[name] }
    public func argument(_ name: String) -> String? { arguments[name] }
    /// Every value given for an option, in order; empty when it was not given.
    public func options(_ name: String) -> [String] { repeatedOptions[name] ?? [] }

    /// An option's value converted by `transform`, or a usage error naming it.
    public func option<T>(_ name: String, as what: String, _ transform: (String) -> T?) throws(ParseError) -> T? {
        guard let raw = options[name] else { return nil }
        guard let value = transform(raw) else {
            throw .invalid("Invalid value '\(raw)' for '--\(name)': expected \(what)")
        }
        return value
    }
}
