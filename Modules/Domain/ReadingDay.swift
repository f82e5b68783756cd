import Foundation

// MARK: - ReadingDay

/// A calendar day in the reader's own time zone, `YYYY-MM-DD`.
///
/// Reading sessions are filed under the day the reader read on, not under an instant:
/// a session logged at 23:50 in Lisbon belongs to that evening on every device, whatever
/// time zone the other device is in. Days compare and sort as their text does.
public struct ReadingDay: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// - Throws: `DomainError.invalidDay` for a day the Gregorian calendar does not have.
    public init(year: Int, month: Int, day: Int) throws(DomainError) {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...Self.daysIn(month: month, year: year)).contains(day)
        else { throw .invalidDay(String(format: "%04d-%02d-%02d", year, month, day)) }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD` (exactly that shape: ten characters).
    /// - Throws: `DomainError.invalidDay`.
    public init(_ text: String) throws(DomainError) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10)
        else { throw .invalidDay(text) }
        do {
            try self.init(year: year, month: month, day: day)
        } catch {
            throw .invalidDay(text)
        }
    }

    /// The day `date` falls on in `timeZone`.
    public init(_ date: Date, in timeZone: TimeZone = .current) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        // NB: the Gregorian calendar gives every date a year, month and day.
        year = parts.year ?? 1970
        month = parts.month ?? 1
        day = parts.day ?? 1
    }

    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

    // MARK: Arithmetic

    /// The day before.
    public var previous: ReadingDay { adding(days: -1) }

    /// The day `days` days later (earlier when negative), counted in whole days.
    public func adding(days: Int) -> ReadingDay {
        Self(ordinal: ordinal + days)
    }

    /// Days from `other` to this day (positive when this day is later).
    public func days(since other: ReadingDay) -> Int { ordinal - other.ordinal }

    /// Days since 0000-03-01 in the proleptic Gregorian calendar (a civil-from-days count).
    private var ordinal: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra
    }

    private init(ordinal: Int) {
        let era = (ordinal >= 0 ? ordinal : ordinal - 146_096) / 146_097
        let dayOfEra = ordinal - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.month = month
        self.day = day
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public static func < (lhs: ReadingDay, rhs: ReadingDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    // MARK: Codable (as its text)

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
