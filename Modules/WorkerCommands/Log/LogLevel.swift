// MARK: - LogLevel

/// How much a worker run logs, and how important one line is. Each level is also the
/// syslog priority journald files the line under (`journalctl -p err`).
public enum LogLevel: String, Sendable, Comparable, CaseIterable {
    case error, warning, info, debug

    /// syslog(3) priority: err 3, warning 4, info 6, debug 7.
    public var syslogPriority: Int {
        switch self {
        case .error: 3
        case .warning: 4
        case .info: 6
        case .debug: 7
        }
    }

    /// More important first: `error < warning < info < debug`, so a line is written
    /// when `line.level <= threshold`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.syslogPriority < rhs.syslogPriority
    }
}
