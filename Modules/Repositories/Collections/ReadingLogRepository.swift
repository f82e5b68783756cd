import Domain
import Storage

// MARK: - ReadingLogRepository

/// The reader's reading sessions (see `CollectionRepository`). Sessions are only added,
/// each with a fresh id, so two devices' sessions never touch the same record: the log
/// needs no merging, and a day's total adds up every device's reading.
public typealias ReadingLogRepository = CollectionRepository<ReadingSessionMapping>

// MARK: - ReadingLogService

extension CollectionRepository: ReadingLogService where Mapping == ReadingSessionMapping {
    /// The sessions; a failed refresh is reported only when there is nothing cached.
    public func sessions(forceRefresh: Bool) async throws -> [ReadingSession] {
        try await values(forceRefresh: forceRefresh)
    }

    /// - Throws: `DomainError` for minutes outside 1...1440 or a malformed book id
    ///   (nothing is written).
    public func logSession(minutes: Int, day: ReadingDay, bookID: Book.ID?) async throws -> ReadingSession {
        let session = try ReadingSession(id: newID.next(), minutes: minutes, day: day, bookID: bookID)
        try await cache.save(session, as: .create)
        return session
    }
}
