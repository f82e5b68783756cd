import Domain

// MARK: - ReadingSessionDTO

/// `sessions` record: `{id, minutes, day: "YYYY-MM-DD", book_id: String|null, last_modified}`.
public struct ReadingSessionDTO: WritableRecordDTO, Hashable {
    public static let collection = CollectionName.sessions

    public var id: String
    public var minutes: Int
    public var day: String
    public var bookID: String?
    public var lastModified: Int?

    enum CodingKeys: String, CodingKey {
        case id, minutes, day
        case bookID = "book_id"
        case lastModified = "last_modified"
    }

    /// The field that names the book a record belongs to, for queries that follow it.
    public static let bookIDField = CodingKeys.bookID.stringValue

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

    /// `book_id` may be absent as well as null.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        minutes = try container.decode(Int.self, forKey: .minutes)
        day = try container.decode(String.self, forKey: .day)
        bookID = try container.decodeIfPresent(String.self, forKey: .bookID)
        lastModified = try container.decodeIfPresent(Int.self, forKey: .lastModified)
    }

    /// Writes `book_id: null` explicitly: the wire shape has the field either way.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(minutes, forKey: .minutes)
        try container.encode(day, forKey: .day)
        try container.encode(bookID, forKey: .bookID)
        try container.encodeIfPresent(lastModified, forKey: .lastModified)
    }

    public func toDomain() throws(DomainError) -> ReadingSession {
        try ReadingSession(id: id, minutes: minutes, day: try ReadingDay(day), bookID: bookID)
    }
}
