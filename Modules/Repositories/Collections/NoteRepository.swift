import Domain
import Records
import Storage

// MARK: - NoteRepository

/// The reader's notes (see `CollectionRepository`).
public typealias NoteRepository = CollectionRepository<NoteMapping>

extension CollectionRepository where Mapping == NoteMapping {
    // MARK: Reading

    /// One page of the notes whose title or body contains `search` (case- and
    /// diacritic-insensitive), found with the store's indexes.
    public func notes(
        matching search: String? = nil, limit: Int? = nil, offset: Int = 0, forceRefresh: Bool = false
    ) async throws -> CachedResult<QueryPage<Note>> {
        try await cache.page(search: search, complete: nil, limit: limit, offset: offset, forceRefresh: forceRefresh)
    }

    /// The note with this id in the local store, without asking the server.
    public func note(id: Note.ID) async throws -> Note? {
        try await value(id: id)
    }
}

// MARK: - NoteService

extension CollectionRepository: NotesLoading, NoteService where Mapping == NoteMapping {
    /// The notes; a failed refresh is reported only when there is nothing cached.
    public func loadNotes() async throws -> [Note] {
        try await values(forceRefresh: false)
    }

    /// The notes matching `search` and about `bookID`, filtered, sorted and cut at `limit`
    /// by the store's query; a failed refresh is reported only when there is nothing cached.
    public func notes(matching search: String, about bookID: Book.ID?, order: ListOrder<NoteSortField>, limit: Int?)
        async throws -> ListSlice<Note>
    {
        try await cache.slice(
            search: search, member: bookID.map { MemberEquality(WireNames.noteBook, equals: $0) }, order: RecordOrder(order),
            limit: limit, forceRefresh: false
        ).valueOrRefreshError()
    }

    /// - Throws: `DomainError` for an empty title or a malformed book id (nothing is written).
    public func addNote(title: String, body: String, bookID: Book.ID?) async throws -> Note {
        let note = try Note(id: newID.next(), bookID: bookID, title: title, body: body)
        try await cache.save(note, as: .create)
        return note
    }

    /// - Throws: `RepositoryError.notFound` when the store has no such note.
    public func updateNote(_ note: Note) async throws {
        try await cache.save(note, as: .update)
    }

    /// - Throws: `DomainError.invalidIdentifier`, `RepositoryError.notFound`.
    public func deleteNote(id: Note.ID) async throws {
        try await cache.delete(id: RecordID.validate(id), mustExist: true)
    }
}
