// MARK: - CompletionKind

/// What a shell may offer for an argument's or option's value, declared next to it so
/// the completion scripts come from the same declarations as the parser.
///
/// A parameter whose type has a fixed list of words (`allowedValues`) completes to that
/// list without saying so; this is for the rest: paths, and words only the program can
/// list at the time of asking (record ids in the local store, account names).
public enum CompletionKind: Sendable, Equatable {
    /// One of these words.
    case values([String])
    /// A path of the file system.
    case file
    /// Words the program lists itself: the completion script runs
    /// `PROGRAM [--account NAME] __complete <words…> -- PREFIX` and offers each line it
    /// prints (`word`, or `word<TAB>description`). The program answers from local data
    /// only, quickly, with a bounded number of lines.
    case dynamic([String])
}

// MARK: - Completing

extension OptionSpec {
    /// What a shell may offer for the value: the declared kind, else the fixed list.
    public var valueCompletion: CompletionKind? {
        completion ?? allowedValues.map(CompletionKind.values)
    }
}

extension ArgumentSpec {
    /// What a shell may offer for the argument: the declared kind, else the fixed list.
    public var valueCompletion: CompletionKind? {
        completion ?? allowedValues.map(CompletionKind.values)
    }
}
