import Domain
import Records

// MARK: - ReadingSessionDTO

/// `sessions` record: `{id, minutes, day: "YYYY-MM-DD", book_id: String|null, last_modified}`.
public struct ReadingSessionDTO: WritableRecordDTO, Hashable {
    public static let collection = CollectionName.sessions

    public var id: String
    public var minutes: Int
    public var day: String
    /// Written as `null` for a session of no particular book; may be absent when read.
    @WrittenAsNull public var bookID: String?
    public var lastModified: Int?

    typealias CodingKeys = ReadingSessionFields

    public init(id: String, minutes: Int, day: String, bookID: String?, lastModified: Int? = nil) {
        self.id = id
        self.minutes = minutes
        self.day = day
        self.bookID = bookID
        self.lastModified = lastModified
    }

    public init(_ session: ReadingSession) {
        self.init(id: session.id, minutes: session.minutes, day: session.day.description, bookID: session.bookID)
    }

    public func toDomain() throws(DomainError) -> ReadingSession {
        try ReadingSession(id: id, minutes: minutes, day: try ReadingDay(day), bookID: bookID)
    }
}
