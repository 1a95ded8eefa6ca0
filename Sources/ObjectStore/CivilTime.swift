import Foundation

/// A UTC calendar time to the second, converted to and from seconds since 1970 with Howard Hinnant's days-from-civil
/// algorithm, and parsed from the two forms object stores send: HTTP dates (`Last-Modified: Wed, 12 Oct 2009
/// 17:50:00 GMT`) and ISO 8601 (`<LastModified>2009-10-12T17:50:30.000Z`).
///
/// Written out rather than through `DateFormatter` so that it needs no shared formatter (not `Sendable`) and no locale.
package struct CivilTime: Equatable, Sendable {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hour: Int
    package var minute: Int
    package var second: Int

    package init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
    }

    /// The calendar time of a moment.
    package init(secondsSince1970 seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = Int(seconds - days * 86_400)
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        self.init(year: year, month: month, day: day, hour: inDay / 3600, minute: inDay / 60 % 60, second: inDay % 60)
    }

    /// Seconds since 1970-01-01T00:00:00Z.
    package var secondsSince1970: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The moment as a `Date`.
    package var date: Date { Date(timeIntervalSince1970: TimeInterval(secondsSince1970)) }

    /// Parses `Wed, 12 Oct 2009 17:50:00 GMT` (RFC 9110's IMF-fixdate); nil for anything else.
    package static func parseHTTPDate(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT", let day = Int(fields[1]), let year = Int(fields[3]),
            let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].firstIndex(of: String(fields[2]))
        else { return nil }
        let clock = fields[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        return CivilTime(year: year, month: month + 1, day: day, hour: clock[0], minute: clock[1], second: clock[2]).checked?.date
    }

    /// Parses `2009-10-12T17:50:30.000Z` (fraction optional, dropped); nil for anything else.
    package static func parseISO8601(_ text: String) -> Date? {
        guard text.hasSuffix("Z"), text.count >= 20 else { return nil }
        let body = text.dropLast().prefix { $0 != "." }
        let parts = body.split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        guard parts.count == 6 else { return nil }
        return CivilTime(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5]).checked?.date
    }

    private var checked: CivilTime? {
        (1...12).contains(month) && (1...31).contains(day) && (0...23).contains(hour) && (0...59).contains(minute) && (0...60).contains(second)
            ? self : nil
    }
}
