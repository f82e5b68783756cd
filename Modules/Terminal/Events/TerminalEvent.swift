// MARK: - TerminalEvent

/// What happens to a terminal session, in the order it happened (`TerminalSession.events`).
public enum TerminalEvent: Hashable, Sendable {
    case key(Key)
    case paste(String)
    /// SIGWINCH: the terminal has this size now; lay the frame out again.
    case resize(TerminalSize)
    /// The screen may have been drawn over (the process was stopped and continued): the
    /// next frame is drawn whole. The session has already redrawn the last frame.
    case redrawRequested
    /// The session ended on this signal; the terminal is already restored. The stream ends
    /// after it. Exit with `TerminalSignal.exitStatus` or `reraise()`.
    case terminate(TerminalSignal)
}
