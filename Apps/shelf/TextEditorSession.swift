import Foundation

// MARK: - TextEditorSession

/// A text handed to the reader's editor and read back: `$VISUAL`, else `$EDITOR`, run
/// through `/bin/sh` as git runs it (so `EDITOR="code --wait"` works), on a file in a
/// private folder (0700, the file 0600) that only this process names.
struct TextEditorSession {
    let file: URL
    private let folder: URL
    private let editor: String

    /// Writes `text` to a new private file.
    /// - Throws: `CommandFailure` (78) when neither variable names an editor; (73) when
    ///   the file cannot be written.
    init(text: String, name: String, environment: [String: String]) throws {
        let chosen = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }
            .first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        guard let chosen else {
            throw CommandFailure(.configuration, "no editor: set VISUAL or EDITOR (e.g. EDITOR=nano)")
        }
        editor = chosen
        let base = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/shelf-edit-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard let made else {
            throw CommandFailure(.cannotCreate, "cannot create a folder for the editor in \(base)")
        }
        folder = URL(fileURLWithPath: String(cString: made))
        file = folder.appendingPathComponent(name)
        guard FileManager.default.createFile(
            atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw CommandFailure(.cannotCreate, "cannot write \(file.path) for the editor")
        }
    }

    /// Runs the editor on the file and waits for it. - Returns: the file's text then.
    /// - Throws: `CommandFailure` (1) when the editor cannot start or fails; the file stays.
    func edit() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(editor) \"$@\"", editor, file.path]
        do {
            try process.run()
        } catch {
            throw CommandFailure(.failure, "cannot start the editor (\(editor)): \(error.localizedDescription)")
        }
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw CommandFailure(.failure, "the editor (\(editor)) exited with status \(process.terminationStatus); nothing was changed")
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw CommandFailure(.failure, "the edited file \(file.path) is gone; nothing was changed")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Removes the file and its folder.
    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
