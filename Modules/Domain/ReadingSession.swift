// MARK: - ReadingSession

/// Minutes the reader spent reading on one day, optionally with one book.
///
/// Sessions are only ever added (the reading log is append-only): two devices that log
/// reading at the same time each add their own session, so sessions never conflict and
/// a day's total is the sum of every device's sessions.
public struct ReadingSession: Identifiable, Hashable, Sendable, Codable {
    public typealias ID = String

    /// The most minutes one session may hold: a whole day.
    public static let minutesRange = 1...1440

    public let id: ID
    public let minutes: Int
    public let day: ReadingDay
    /// The book read, when the reader said; nil for reading in general (or after the
    /// book was removed with `--keep-notes`).
    public var bookID: Book.ID?

    /// - Throws: `DomainError` for a malformed id or minutes outside 1...1440.
    public init(id: ID, minutes: Int, day: ReadingDay, bookID: Book.ID? = nil) throws(DomainError) {
        self.id = try RecordID.validate(id)
        self.minutes = try Self.validate(minutes: minutes)
        self.day = day
        self.bookID = try bookID.map { (id) throws(DomainError) in try RecordID.validate(id) }
    }

    /// The minutes of a session, checked.
    /// - Throws: `DomainError.invalidMinutes` outside 1...1440.
    public static func validate(minutes: Int) throws(DomainError) -> Int {
        guard minutesRange.contains(minutes) else { throw .invalidMinutes(minutes) }
        return minutes
    }
}
