// MARK: - DailyGoal

/// Minutes of reading a day: 5...120 in steps of 5.
///
/// Out-of-range input is an error rather than being clamped, so a typo such as
/// `--daily-goal 300` is reported instead of quietly becoming 120.
public struct DailyGoal: Hashable, Sendable, Codable, Comparable {
    public static let range = 5...120
    public static let step = 5
    public static let `default` = DailyGoal(uncheckedMinutes: 20)

    public let minutes: Int

    public init(minutes: Int) throws(DomainError) {
        guard Self.range.contains(minutes), minutes % Self.step == 0 else {
            throw .dailyGoalOutOfRange(minutes)
        }
        self.minutes = minutes
    }

    /// For constants known to be valid at compile time.
    private init(uncheckedMinutes: Int) { self.minutes = uncheckedMinutes }

    public static func < (lhs: DailyGoal, rhs: DailyGoal) -> Bool { lhs.minutes < rhs.minutes }

    public init(from decoder: any Decoder) throws {
        let minutes = try decoder.singleValueContainer().decode(Int.self)
        try self.init(minutes: minutes)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(minutes)
    }
}

// MARK: - ReadingSettings

/// The reader's preferences that shape what the library shows.
public struct ReadingSettings: Hashable, Sendable, Codable {
    public var showFinished: Bool
    public var dailyGoal: DailyGoal

    public init(showFinished: Bool = true, dailyGoal: DailyGoal = .default) {
        self.showFinished = showFinished
        self.dailyGoal = dailyGoal
    }

    public static let `default` = ReadingSettings()
}
