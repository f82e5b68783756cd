import Domain
import Presentation

// MARK: - Intent outcomes

/// What a view model's intent gave, or the error it refused with, thrown as it came
/// from the module that refused (a Domain rule, a repository, the store), so the
/// `Error: …` line and the exit status are that error's own (`ExitCode.classifying`).
/// - Parameters:
///   - value: the intent's result; nil when it failed or was cancelled.
///   - failure: the model's `failure`.
func outcome<Value>(_ value: Value?, failure: (any Error)?) throws -> Value {
    if let value { return value }
    throw failure ?? CommandFailure(.software, "the change was cancelled before it was made")
}

/// As `outcome(_:failure:)`, for an intent that says only whether it succeeded.
func outcome(_ succeeded: Bool, failure: (any Error)?) throws {
    _ = try outcome(succeeded ? () : nil, failure: failure)
}

/// What a view model's load gave, or the error it failed with, thrown as it came.
func loaded<Value>(_ state: LoadingState<Value>, failure: (any Error)?) throws -> Value {
    try outcome(failure == nil ? state.value : nil, failure: failure)
}
