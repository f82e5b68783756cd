import Domain
import Foundation
import Presentation
import Screens
import Testing
import TestSupport

/// The reading log's screens and the import report, against `Fixtures/rendering/`.
@MainActor
@Suite("Rendering: reading log and import")
struct ReadingScreenRenderingTests {
    nonisolated static let today = ReadingDay(Date(timeIntervalSince1970: 1_796_126_400), in: TimeZone(identifier: "UTC") ?? .gmt)

    private func model(_ sessions: [(String, Int, String, String?)]) async throws -> ReadingProgressViewModel {
        let service = FakeReadingLogService(sessions: try sessions.map { id, minutes, day, book in
            try ReadingSession(id: id, minutes: minutes, day: ReadingDay(day), bookID: book)
        })
        let model = ReadingProgressViewModel(service: service, goal: try DailyGoal(minutes: 30), today: { Self.today })
        await model.load()
        return model
    }

    @Test func todayOnTheWayToTheGoal() async throws {
        let model = try await model([("s1", 30, "2026-11-30", nil), ("s2", 10, "2026-12-01", "book-001")])
        try RenderingFixture.expect(ReadingTodayScreen(model), matches: "today-under-goal")
    }

    @Test func todayGoalMet() async throws {
        let model = try await model([("s1", 30, "2026-11-30", nil), ("s2", 35, "2026-12-01", nil)])
        try RenderingFixture.expect(ReadingTodayScreen(model), matches: "today-goal-met")
    }

    @Test func logByDay() async throws {
        let model = try await model([
            ("s1", 30, "2026-11-25", nil), ("s2", 20, "2026-11-30", "book-001"), ("s3", 15, "2026-11-30", nil),
            ("s4", 10, "2026-12-01", "book-002"),
        ])
        try RenderingFixture.expect(ReadingLogScreen(model, days: 7), matches: "log-week")
    }

    @Test func logEmpty() async throws {
        let model = try await model([])
        try RenderingFixture.expect(ReadingLogScreen(model, days: 7), matches: "log-empty")
    }

    @Test func importReport() throws {
        var report = ImportReport(
            file: "goodreads_library_export.csv", format: .goodreads, dryRun: false, rows: 6,
            collections: ["books": .init(), "notes": .init()],
            issues: [
                ImportIssue(location: "line 4", reason: "a note's body must not be empty: the review was left out", imported: true),
                ImportIssue(location: "line 6", reason: "no title"),
            ],
            fields: [
                ImportField(source: "Title", keptAs: "title", rows: 4),
                ImportField(source: "Exclusive Shelf", keptAs: "finished", rows: 4, reason: "finished when 'read'"),
                ImportField(source: "My Rating", keptAs: nil, rows: 3, reason: "Shelf keeps no ratings"),
                ImportField(source: "Date Read", keptAs: nil, rows: 1, reason: "Shelf keeps no dates read"),
            ])
        report.collections["books"]?.added = 3
        report.collections["books"]?.unchanged = 1
        report.collections["notes"]?.added = 2
        try RenderingFixture.expect(ImportReportScreen(report), matches: "import-report")
    }
}
