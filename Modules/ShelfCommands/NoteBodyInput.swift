import ArgumentParsing
import Domain
import Foundation

// MARK: - NoteBodyInput

/// Where a note's body comes from: `--body TEXT`, `--body -` (standard input) or
/// `--edit` (the person's editor). The text is had before anything is written, and a
/// text typed in the editor survives a write that fails: its file is kept and named.
@MainActor
struct NoteBodyInput {
    /// The text, and the editor's file when it came from the editor.
    let text: String
    let edited: EditedText?

    /// A body is one record's field: far below the store's 1 MiB per record, and more
    /// than any note a person writes.
    static let limit = 256 * 1024

    /// - Parameters:
    ///   - option: `--body`'s value; `-` reads standard input.
    ///   - current: the body being edited (`note edit --edit`), nil for a new note.
    /// - Returns: nil when neither `--body` nor `--edit` was given.
    static func read(option: String?, edit: Bool, current: String?, context: CommandContext) throws -> NoteBodyInput? {
        do {
            if edit {
                let edited = try ExternalEditor(environment: context.environment).edit(current ?? "", name: "note", limit: limit)
                let text = try edited.accepted(what: "the note's body", refuseUnchanged: current != nil)
                return NoteBodyInput(text: text, edited: edited)
            }
            guard let option else { return nil }
            guard option == "-" else { return NoteBodyInput(text: option, edited: nil) }
            if context.output.terminal.stdinIsTerminal {
                context.output.terminal.writeErr("Type the note's body; end it with Ctrl-D on a line of its own.\n")
            }
            let text = try context.console.readInput(limit)
            if TextDecoding.isBlank(text) { throw TextInputError.empty(what: "the note's body from standard input") }
            return NoteBodyInput(text: text, edited: nil)
        } catch let error as TextInputError {
            throw CommandFailure(error.exitCode, error.description)
        }
    }

    /// Runs `write`; when it fails, the editor's file (if the text came from one) is
    /// kept and the error names it. When it succeeds, the file goes.
    static func writing<Result>(_ input: NoteBodyInput?, _ write: () async throws -> Result) async throws -> Result {
        do {
            let result = try await write()
            input?.edited?.discard()
            return result
        } catch {
            guard let edited = input?.edited else { throw error }
            edited.keep()
            throw CommandFailure(.classifying(error), "\(failureMessage(error)); what you wrote is kept in \(edited.file)")
        }
    }
}

// MARK: - Exit statuses

extension TextInputError {
    /// Refused text is invalid data (65); an editor that cannot start is unavailable (69);
    /// an editor that fails, or a file that cannot be used, is a plain failure (1, 74).
    var exitCode: ExitCode {
        switch self {
        case .tooLarge, .notUTF8, .empty, .unchanged: .dataError
        case .editorNotStarted: .unavailable
        case .editorFailed: .failure
        case .fileSystem: .ioError
        }
    }
}
