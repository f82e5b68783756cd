import Domain
import Presentation
import Terminal

// MARK: - TodayPane

/// The reading log from `ReadingProgressViewModel`: today's minutes against the goal, the
/// streak, and the last 30 days as a chart of block characters (one column a day, oldest
/// on the left, a full block at the goal or the busiest day, whichever is more).
@MainActor
struct TodayPane {
    let model: ReadingProgressViewModel?

    static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    static let chartDays = 30

    func draw(into frame: inout Frame, rows area: Range<Int>) {
        guard let first = area.first else { return }
        frame.write("Today", row: first, column: 2, style: .bold)
        guard let model, let progress = model.progress else {
            let text = model == nil ? "No reading log on this account." : (model?.errorMessage ?? "Reading the log…")
            frame.write(text, row: first + 2, column: 2, style: .dim)
            return
        }
        let met = progress.goalMet ? "goal met" : "\(progress.minutesLeft) left"
        frame.write("\(progress.minutesToday) of \(progress.goalMinutes) minutes (\(met))", row: first + 2, column: 2)
        frame.write("streak: \(progress.streakDays) day\(progress.streakDays == 1 ? "" : "s")", row: first + 3, column: 2)
        let days = model.days(last: Self.chartDays)
        var minutes: [ReadingDay: Int] = [:]
        for day in days { minutes[day.day] = day.totalMinutes }
        let top = max(progress.goalMinutes, minutes.values.max() ?? 0, 1)
        let chart = (0..<Self.chartDays).reversed().map { back -> Character in
            let value = minutes[progress.day.adding(days: -back)] ?? 0
            let level = value == 0 ? 0 : max(1, min(8, value * 8 / top))
            return Self.blocks[level]
        }
        frame.write("last \(Self.chartDays) days", row: first + 5, column: 2, style: .dim)
        frame.write(String(chart), row: first + 6, column: 2)
        frame.write(String(repeating: "─", count: Self.chartDays), row: first + 7, column: 2, style: .dim)
        frame.write("\(progress.day.adding(days: -(Self.chartDays - 1)))", row: first + 8, column: 2, style: .dim)
        frame.write("\(progress.day)", row: first + 8, column: 2 + Self.chartDays - 10, style: .dim)
    }
}
