import Domain
import Foundation
import Observation

// MARK: - ReadingProgressViewModel

/// The reading log: today's minutes against the daily goal, the streak of days that met
/// it, the sessions by day, and logging a new session.
///
/// Sessions come from the injected `ReadingLogService` (every device's sessions once
/// synced). The goal is the reader's setting; `ReadingSettingsViewModel` owns it and this
/// model follows it through `setGoal`. "Today" is the reader's calendar day, injected
/// so tests and the CLI agree on it.
@MainActor
@Observable
public final class ReadingProgressViewModel {
    // MARK: State

    public var state: LoadingState<[ReadingSession]> { content.state }
    /// The last failure of a load or an intent; cleared by the next success.
    public var errorMessage: String? { content.errorMessage }
    public private(set) var goal: DailyGoal

    public var sessions: [ReadingSession] { state.value ?? [] }
    public var isLoading: Bool { state.isLoading }

    /// The day this model calls today.
    public var today: ReadingDay { clock() }

    /// Today's minutes, goal and streak; nil until sessions have loaded.
    public var progress: ReadingProgress? {
        state.value.map { ReadingLog.progress($0, goal: goal, today: today) }
    }

    /// The sessions of the last `days` days by day, newest first.
    public func days(last days: Int) -> [ReadingLogDay] {
        ReadingLog.days(sessions, last: days, today: today)
    }

    /// The sessions of the last `days` days by day, in `order`, at most `limit` days.
    public func days(last days: Int, order: ListOrder<LogSortField>, limit: Int?) -> [ReadingLogDay] {
        ReadingLog.days(sessions, last: days, today: today).sorted(order, limit: limit)
    }

    // MARK: Dependencies

    private let service: any ReadingLogService
    @ObservationIgnored private let clock: @Sendable () -> ReadingDay
    private let content = ContentController<[ReadingSession]>()

    /// - Parameters:
    ///   - goal: the daily goal to measure against (the reader's setting).
    ///   - today: the reader's calendar day; by default the day of the system clock in
    ///     the system time zone.
    public init(
        service: any ReadingLogService, goal: DailyGoal,
        today: @escaping @Sendable () -> ReadingDay = { ReadingDay(SyncClock.live.now()) }
    ) {
        self.service = service
        self.goal = goal
        self.clock = today
    }

    // MARK: Loading

    /// Loads every session; the newest load wins over an older one that finishes later,
    /// and a failed load keeps the sessions on screen.
    public func load(forceRefresh: Bool = false) async {
        let service = self.service
        await content.load(.newestWins, action: "load the reading log") {
            try await service.sessions(forceRefresh: forceRefresh).requireUniqueIDs()
        }
    }

    /// Cancels in-flight work; nothing it would have loaded or changed is published.
    public func cancel() {
        content.cancel()
    }

    // MARK: Intents

    /// Follows the reader's goal (from `ReadingSettingsViewModel.onChange`).
    public func setGoal(_ goal: DailyGoal) {
        self.goal = goal
    }

    /// Logs a reading session. Minutes outside 1...1440, a malformed book id or a day
    /// after today set `errorMessage` and log nothing (the service is not asked).
    /// - Parameter day: the day read on; today when nil.
    /// - Returns: the new session, or nil when it was refused or failed.
    @discardableResult
    public func log(minutes: Int, bookID: Book.ID? = nil, on day: ReadingDay? = nil) async -> ReadingSession? {
        let action = "log the reading session"
        let day = day ?? today
        do {
            // Checked here first so a refused session never reaches the service.
            _ = try ReadingSession.validate(minutes: minutes)
            _ = try bookID.map { (id) throws(DomainError) in try RecordID.validate(id) }
            let today = self.today
            guard day <= today else { throw DomainError.dayInTheFuture(day.description, today: today.description) }
        } catch {
            content.refuse(action, error)
            return nil
        }
        let service = self.service
        guard let session = await content.attempt(action, { try await service.logSession(minutes: minutes, day: day, bookID: bookID) })
        else { return nil }
        content.update { $0 + [session] }
        return session
    }
}
