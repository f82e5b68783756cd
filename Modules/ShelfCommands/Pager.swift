import ArgumentParsing
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Pager

/// Shows text through a pager (`$PAGER`, else `less -FRX`), run as `/bin/sh -c COMMAND`
/// with the text on its standard input, as git does. Whether to page at all is
/// `OutputPolicy.pager`'s decision.
///
/// A pager that quits before reading everything (`q`) closes the pipe: the write fails
/// with EPIPE (SIGPIPE is ignored, see `Console.ignoreBrokenPipes`), the rest is dropped,
/// and shelf exits as the command would have — a reader who stopped reading is no error.
enum Pager {
    /// Pages `text`, waiting for the pager to exit.
    /// - Returns: false when the pager could not be started or its command was not found
    ///   (the caller prints the text itself); true once the pager ran, whatever it read.
    static func show(_ text: String, command: String, environment: [String: String]) -> Bool {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return false }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addclose(&actions, writeEnd)

        // NB: shelf ignores SIGPIPE; the pager gets the default back, as if run by a shell.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))

        var pagerEnvironment = environment
        // less: quit when the text fits one screen, pass colour through, leave the screen
        // as it is — unless the reader set their own LESS.
        if pagerEnvironment["LESS"] == nil { pagerEnvironment["LESS"] = "FRX" }
        let argv = ["/bin/sh", "-c", command]
        let envp = pagerEnvironment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let spawned = withCStrings(argv) { argvPointers in
            withCStrings(envp) { envPointers in
                posix_spawn(&pid, "/bin/sh", &actions, &attributes, argvPointers, envPointers)
            }
        }
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            return false
        }
        FileDescriptorText.write(Array(text.utf8), to: writeEnd)
        close(writeEnd)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // NB: the shell's 126/127 mean the pager never ran (not found, not executable):
        // nothing was shown, so the caller prints the text itself.
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        return !(exited && (code == 126 || code == 127))
    }

    /// `strings` as a NULL-terminated array of C strings, valid inside `body`.
    private static func withCStrings<Result>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
    ) -> Result {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { buffer in
            // NB: the buffer is non-empty (it ends with the NULL), so baseAddress exists.
            body(buffer.baseAddress!)
        }
    }
}
