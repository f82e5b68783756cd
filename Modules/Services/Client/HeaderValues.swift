import Foundation
import Vocabulary

// MARK: - HeaderValues

/// Parsing of the response headers the sync engine acts on.
///
/// Every value comes from the network, so none can trap or run away: numbers saturate
/// instead of overflowing, and a wait the server asks for is clamped to
/// `maximumWait` — a server (or anything in between) answering `Backoff:
/// 9223372036854775807` or `Retry-After` in year 9999 pauses an account for a day at
/// most, never for ever.
public enum HeaderValues {
    /// The longest wait a server can impose: one day. Long enough for any real
    /// maintenance window, short enough that a broken or hostile value never locks an
    /// account out for good (and `shelf sync --ignore-backoff` overrides it anyway).
    public static let maximumWait: TimeInterval = 86_400

    /// `Backoff: <seconds>` — Kinto asks clients to wait before the next sync.
    /// - Returns: the seconds, clamped to `0...maximumWait`; nil when absent or not a
    ///   non-negative integer.
    public static func backoff(_ value: String?) -> TimeInterval? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), let seconds = saturatingSeconds(text) else { return nil }
        return seconds
    }

    /// `Retry-After` as seconds from `now`: either delta-seconds (`3`, what Kinto sends)
    /// or an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`); a date in the past gives 0.
    /// - Returns: the seconds, clamped to `0...maximumWait`; nil when absent or unreadable.
    public static func retryAfter(_ value: String?, now: Date = SyncClock.live.now()) -> TimeInterval? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = saturatingSeconds(text) { return seconds }
        guard let date = httpDate(text) else { return nil }
        return clamped(date.timeIntervalSince(now))
    }

    /// `text` as delta-seconds (ASCII digits only), saturating at `maximumWait` however
    /// many digits there are; nil when it is not a non-negative integer.
    static func saturatingSeconds(_ text: String) -> TimeInterval? {
        guard !text.isEmpty, text.utf8.count <= 1_000, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        var seconds = 0
        for digit in text.utf8 {
            seconds = seconds * 10 + Int(digit - UInt8(ascii: "0"))
            // NB: stops growing long before Int could overflow (maximumWait × 10 + 9).
            if Double(seconds) >= maximumWait { return maximumWait }
        }
        return TimeInterval(seconds)
    }

    /// A wait as a server expressed it, within `0...maximumWait` (NaN counts as none).
    public static func clamped(_ seconds: TimeInterval) -> TimeInterval {
        guard seconds.isFinite else { return seconds > 0 ? maximumWait : 0 }
        return min(max(seconds, 0), maximumWait)
    }

    /// A wait as whole seconds for messages, rounded up, within `0...maximumWait`.
    public static func wholeSeconds(_ seconds: TimeInterval) -> Int {
        Int(clamped(seconds).rounded(.up))
    }

    /// An IMF-fixdate (RFC 9110 §5.6.7), the only date form servers may send today.
    static func httpDate(_ text: String) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
