import Domain
import Records

// MARK: - NoteDTO

/// `notes` record: `{id, book_id: String|null, title, body, last_modified}`.
public struct NoteDTO: WritableRecordDTO, Hashable {
    public static let collection = CollectionName.notes

    public var id: String
    /// Written as `null` when the note belongs to no book; may be absent when read.
    @WrittenAsNull public var bookID: String?
    public var title: String
    public var body: String
    public var lastModified: Int?

    typealias CodingKeys = NoteFields

    public init(id: String, bookID: String?, title: String, body: String, lastModified: Int? = nil) {
        self.id = id
        self.bookID = bookID
        self.title = title
        self.body = body
        self.lastModified = lastModified
    }

    public init(_ note: Note) {
        self.init(id: note.id, bookID: note.bookID, title: note.title, body: note.body)
    }

    /// `body` may be absent (empty); `book_id` as well as null.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        bookID = try container.decodeIfPresent(String.self, forKey: .bookID)
        title = try container.decode(String.self, forKey: .title)
        body = try container.decodeIfPresent(String.self, forKey: .body) ?? ""
        lastModified = try container.decodeIfPresent(Int.self, forKey: .lastModified)
    }

    public func toDomain() throws(DomainError) -> Note {
        try Note(id: id, bookID: bookID, title: title, body: body)
    }
}
