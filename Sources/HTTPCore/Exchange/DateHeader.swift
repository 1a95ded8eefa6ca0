import Glibc
import NIOCore

/// The `Date` header line, formatted at most once per second per event loop (RFC 9110 IMF-fixdate), with the lines
/// every answer of the server carries after it (`Strict-Transport-Security` on a TLS port).
///
/// Not thread-safe: each event loop owns one (see ``LoopResources``).
package final class DateHeader {
    private var second = -1
    private var line = ByteBuffer()
    private let following: String

    /// Creates an empty cache; the first ``current()`` formats. `following`: header lines (each ending `\r\n`) sent
    /// after the `Date` line in every answer.
    package init(following: String = "") {
        self.following = following
    }

    /// `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n` for the current second, and the lines following it.
    package func current() -> ByteBuffer {
        let now = time(nil)
        if now != second {
            second = now
            line = ByteBuffer(string: "Date: " + Self.format(now) + "\r\n" + following)
        }
        return line
    }

    /// `seconds` since 1970 as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func format(_ seconds: Int) -> String {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(1900 + parts.tm_year) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
