import ArgumentParsing
import Domain
import Repositories
import Storage
import Sync

// MARK: - CommandFailure

/// A command that could not do what was asked: the sentence printed after `Error:` and
/// the exit status scripts see (documented in the root help and the README).
struct CommandFailure: Error {
    let code: ExitCode
    let message: String

    init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `shelf sync` (or another command that needs a server) on the local-only store.
    static func noServer(_ store: String) -> CommandFailure {
        CommandFailure(.unavailable, """
            no server configured: add an account ('shelf account add NAME --server URL --user USER') \
            or set SHELF_SERVER, SHELF_USER and SHELF_PASSWORD; local data is kept in \(store)
            """)
    }
}

// MARK: - Exit statuses of errors

extension ExitCode {
    /// The status for an error a module threw, sorted by what the reader can do about it.
    static func classifying(_ error: any Error) -> ExitCode {
        switch error {
        case let failure as CommandFailure: failure.code
        case is ParseError: .usage
        case is LimitOverrideError: .configuration
        case is DomainError, is RouteError: .dataError
        case let error as RepositoryError:
            switch error {
            case .notFound: .failure
            case .idInUse, .unreadableRecord: .dataError
            }
        case let error as ResolutionError:
            switch error {
            case .ambiguous, .tooShort: .usage
            case .noConflict, .noConflictWithID, .noDeadLetter: .failure
            }
        case let error as FieldDecisionError:
            switch error {
            case .givenTwice: .usage
            case .unknownField, .notInConflict, .undecided, .badValue, .refusedByRules, .wholeRecordClash: .dataError
            }
        case is ConflictEditFormError: .dataError
        case let error as UndoError:
            switch error {
            case .ambiguous, .tooShort, .needsConfirmation: .usage
            case .changedMeanwhile: .temporaryFailure
            case .nothingToUndo, .nothingInHistory, .nothingToRedo, .noChange, .noOperation, .alreadyUndone, .tooLarge, .declined,
                 .alreadySent, .inConflict, .notAnEdit, .referenced: .failure
            }
        case let error as RecordLookupError: error.exitCode
        case let error as StorageError:
            switch error {
            case .notFound: .failure
            case .invalidRecord, .readOnlyCollection, .invalidAccountName: .dataError
            case .sqlite, .newerSchema, .fileSystem, .transactionFinished, .corruptValue: .ioError
            }
        case is AccountConfigError: .configuration
        case is AccountRemovalError: .failure
        case is DamagedStoreError: .ioError
        case let error as MaintenanceError:
            switch error {
            case .noStore, .noBackup: .ioError
            case .syncRunning: .temporaryFailure
            }
        case let error as AccountVerificationError: error.exitStatus
        default: .software
        }
    }
}

// MARK: - Messages

/// The sentence after `Error:`: errors of Shelf's modules describe themselves without
/// secrets (see their `CustomStringConvertible` conformances).
func failureMessage(_ error: any Error) -> String {
    if let failure = error as? CommandFailure { return failure.message }
    if let lookup = error as? RecordLookupError { return lookup.summary }
    return String(describing: error)
}

/// Lines printed under the error, one per line (an ambiguous id's candidates).
func failureDetails(_ error: any Error) -> [String] {
    (error as? RecordLookupError)?.candidateLines ?? []
}
