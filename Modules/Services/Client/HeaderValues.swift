import Foundation

// MARK: - HeaderValues

/// Parsing of the response headers the sync engine acts on.
public enum HeaderValues {
    /// `Backoff: <seconds>` — Kinto asks clients to wait before the next sync.
    /// - Returns: nil when absent or not a non-negative integer.
    public static func backoff(_ value: String?) -> TimeInterval? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), let seconds = Int(text), seconds >= 0 else { return nil }
        return TimeInterval(seconds)
    }

    /// `Retry-After` as seconds from `now`: either delta-seconds (`3`, what Kinto sends)
    /// or an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`); a date in the past gives 0.
    public static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if text.allSatisfy(\.isASCII), let seconds = Int(text) {
            return seconds >= 0 ? TimeInterval(seconds) : nil
        }
        guard let date = httpDate(text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// An IMF-fixdate (RFC 9110 §5.6.7), the only date form servers may send today.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
