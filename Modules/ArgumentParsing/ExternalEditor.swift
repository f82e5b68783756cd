#if canImport(Glibc)
import Glibc
#endif

// MARK: - ExternalEditor

/// The person's editor, run on a private temporary file the way git runs it.
///
/// Which editor: `$VISUAL`, then `$EDITOR`, then `vi` (an empty value counts as unset).
/// How it runs: a command without shell metacharacters is run directly; one with them
/// (`code --wait`, `emacsclient -t`, a path with spaces in quotes) is given to `/bin/sh`
/// as `<command> "$@"`, with the file as the argument — git's own rule, so whatever
/// works as git's editor works here. The file is created `0600` in `$TMPDIR` (or
/// `/tmp`) and removed afterwards, unless it holds words that were not written anywhere
/// else (see `EditedText.keep`). Interrupts from the terminal go to the editor, not to
/// this process, while it runs.
public struct ExternalEditor: Sendable {
    public let command: String
    let temporaryDirectory: String

    /// Characters that make git hand the editor command to the shell.
    static let shellMetacharacters = Set("|&;<>()$`\\\"' \t\n*?[#~=%")

    public init(environment: [String: String]) {
        let chosen = [environment["VISUAL"], environment["EDITOR"]].lazy.compactMap { $0 }.first { !$0.isEmpty }
        command = chosen ?? "vi"
        let tmp = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        temporaryDirectory = tmp.hasSuffix("/") && tmp.count > 1 ? String(tmp.dropLast()) : tmp
    }

    /// The argv that runs the editor on `file`.
    func argv(file: String) -> [String] {
        if command.contains(where: Self.shellMetacharacters.contains) {
            return ["/bin/sh", "-c", command + " \"$@\"", command, file]
        }
        return [command, file]
    }

    /// Opens `text` in the editor and returns what was saved.
    /// - Parameters:
    ///   - name: a word for the file's name (`note`), so the editor's title bar says
    ///     what is edited.
    ///   - limit: the largest text accepted back, in bytes.
    /// - Throws: `TextInputError` when the file cannot be made or read, the editor
    ///   cannot start or fails (what was written then is kept and named), or the text
    ///   is too large or not UTF-8 (kept too).
    public func edit(_ text: String, name: String, limit: Int) throws(TextInputError) -> EditedText {
        let file = try makeFile(name: name, contents: text.isEmpty || text.hasSuffix("\n") ? text : text + "\n")
        let result = EditedText(file: file, original: text)
        let status: String?
        do throws(TextInputError) {
            status = try run(file: file)
        } catch {
            result.discard()
            throw error
        }
        let bytes: [UInt8]
        do throws(TextInputError) {
            bytes = try readBack(file, limit: limit)
        } catch {
            throw Self.keeping(error, result)
        }
        if let status {
            let written = String(decoding: bytes, as: UTF8.self)
            let keep = !TextDecoding.isBlank(written) && TextDecoding.withoutFinalLineBreaks(written) != text
            if keep { result.keep() } else { result.discard() }
            throw .editorFailed(command: command, status: status, keptFile: keep ? file : nil)
        }
        do throws(TextInputError) {
            result.text = try TextDecoding.text(bytes, source: "the editor's file")
        } catch {
            throw Self.keeping(error, result)
        }
        return result
    }

    /// A read that failed after editing: the file stays, and the message names it.
    private static func keeping(_ error: TextInputError, _ result: EditedText) -> TextInputError {
        result.keep()
        switch error {
        case .tooLarge(_, let limit): return .tooLarge(source: "the editor's file (kept in \(result.file))", limit: limit)
        case .notUTF8: return .notUTF8(source: "the editor's file (kept in \(result.file))")
        default: return error
        }
    }

    // MARK: The file

    private func makeFile(name: String, contents: String) throws(TextInputError) -> String {
        let safeName = String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" })
        var template = Array("\(temporaryDirectory)/shelf-\(safeName)-XXXXXX.txt".utf8CString)
        // NB: mkstemps creates the file with mode 0600 and O_EXCL: no other user can
        // read it or have placed a link there.
        // NB: the force unwraps: a buffer of a non-empty array always has a base address.
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard descriptor >= 0 else {
            throw .fileSystem(operation: "create a temporary file in \(temporaryDirectory)", reason: String(cString: strerror(errno)))
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { close(descriptor) }
        var bytes = Array(contents.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                unlink(path)
                throw .fileSystem(operation: "write \(path)", reason: reason)
            }
            bytes = bytes.dropFirst(written)
        }
        return path
    }

    private func readBack(_ path: String, limit: Int) throws(TextInputError) -> [UInt8] {
        // NB: an editor may replace the file (write a new one, rename it over): the
        // path is opened again, not the descriptor kept.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            throw .fileSystem(operation: "read \(path)", reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        return try BoundedRead.all(from: descriptor, limit: limit, source: "the editor's file")
    }

    // MARK: Running

    /// Runs the editor and waits for it.
    /// - Returns: nil when it exited 0, else how it ended ("exited with status 1").
    private func run(file: String) throws(TextInputError) -> String? {
        let arguments = argv(file: file)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The editor gets the default handling of SIGINT and SIGQUIT back (this process
        // ignores them while it waits), so Ctrl-C reaches the editor as usual.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGQUIT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))

        let previousInterrupt = signal(SIGINT, SIG_IGN)
        let previousQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, previousInterrupt)
            signal(SIGQUIT, previousQuit)
        }

        var pid = pid_t()
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        let spawned = posix_spawnp(&pid, arguments[0], nil, &attributes, cArguments, environ)
        guard spawned == 0 else {
            throw .editorNotStarted(command: command, reason: String(cString: strerror(spawned)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw .editorNotStarted(command: command, reason: String(cString: strerror(errno)))
            }
        }
        // NB: the wait status macros are not imported into Swift; their glibc values.
        let signalNumber = status & 0x7F
        if signalNumber == 0 {
            let code = (status >> 8) & 0xFF
            // sh exits 127 when the command is not found, 126 when it cannot run.
            if code == 127 || code == 126, arguments[0] == "/bin/sh" {
                throw .editorNotStarted(command: command, reason: code == 127 ? "command not found" : "not executable")
            }
            return code == 0 ? nil : "exited with status \(code)"
        }
        return "was stopped by signal \(signalNumber)"
    }
}

// MARK: - EditedText

/// What the editor saved, and its file, which is removed unless `keep()` is called:
/// a caller that fails to write the text keeps the file and names it, so nothing typed
/// is lost.
///
/// Not `Sendable`: it belongs to the command that ran the editor, on its thread.
public final class EditedText {
    public let file: String
    /// What the editor was given.
    public let original: String
    /// What it saved, without its final line breaks.
    public internal(set) var text = ""
    private var settled = false

    init(file: String, original: String) {
        self.file = file
        self.original = original
    }

    /// The saved text, unless it is blank or (`refuseUnchanged`) what the editor was
    /// given; the file is removed either way, as nothing new would be lost.
    /// - Parameter what: the value's name for the message ("the note's body").
    public func accepted(what: String, refuseUnchanged: Bool) throws(TextInputError) -> String {
        if TextDecoding.isBlank(text) {
            discard()
            throw .empty(what: what)
        }
        if refuseUnchanged, text == TextDecoding.withoutFinalLineBreaks(original) {
            discard()
            throw .unchanged(what: what)
        }
        return text
    }

    /// The text was written where it belongs: the file goes.
    public func discard() {
        guard !settled else { return }
        settled = true
        unlink(file)
    }

    /// The text was not written: the file stays for the person to take it from.
    public func keep() {
        settled = true
    }

    deinit {
        // NB: a caller that neither wrote nor kept the text leaves nothing behind.
        if !settled { unlink(file) }
    }
}
