import Glibc
import JSONText
import Logging
import NIOCore
import NIOHTTP1

/// One event loop's access log: one line per answered request — time (UTC, milliseconds), client address, method,
/// target, status, body bytes, duration in microseconds, and for tiles whether the cache had them — in the text or
/// JSON format, gathered in a buffer and written to the shared ``AccessLogSink`` when it holds 32 KiB or every
/// 200 ms (``flush()``), so that a request costs formatting into memory, not a system call.
///
/// Not thread-safe: each event loop owns one (see ``LoopResources``).
package final class AccessLog {
    private let format: AccessLogFormat
    private let sink: AccessLogSink
    private let logger: Logger
    private var buffer = ByteBuffer()
    /// The current second and its ISO 8601 text (`2026-11-24T06:40:00.`), formatted once per second.
    private var second = -1
    private var secondText = ""
    private var reportedFailure = false

    /// Lines beyond this many buffered bytes are written at once.
    package static let flushBytes = 32 << 10

    /// A log writing `format` lines to `sink`; a failing sink is reported once to `logger`.
    package init(format: AccessLogFormat, sink: AccessLogSink, logger: Logger) {
        self.format = format
        self.sink = sink
        self.logger = logger
        buffer.reserveCapacity(Self.flushBytes + 1024)
    }

    /// Adds the line of one answered request.
    ///
    /// - Complexity: O(n) in the target's length; no system call but one `clock_gettime` (and a write per 32 KiB).
    package func record(_ exchange: Exchange, status: HTTPStatus, bytes: Int, microseconds: Int64, client: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        if now.tv_sec != second {
            second = now.tv_sec
            secondText = Self.isoSecond(now.tv_sec)
        }
        let milliseconds = Int(now.tv_nsec / 1_000_000)
        let cache: StaticString =
            switch exchange.cache {
            case .hit: "hit"
            case .miss: "miss"
            case .join: "join"
            case .none: "-"
            }
        switch format {
        case .json:
            buffer.writeStaticString("{\"time\":\"")
            writeTime(milliseconds)
            buffer.writeStaticString("Z\",\"client\":\"")
            writeEscaped(client)
            buffer.writeStaticString("\",\"method\":\"")
            writeEscaped(exchange.method.rawValue)
            buffer.writeStaticString("\",\"target\":\"")
            writeEscaped(LogText.redacted(exchange.target))
            buffer.writeStaticString("\",\"status\":")
            LoadedFile.writeNumber(status.rawValue, radix: 10, into: &buffer)
            buffer.writeStaticString(",\"bytes\":")
            LoadedFile.writeNumber(bytes, radix: 10, into: &buffer)
            buffer.writeStaticString(",\"duration_us\":")
            LoadedFile.writeNumber(Int(microseconds), radix: 10, into: &buffer)
            buffer.writeStaticString(",\"cache\":\"")
            buffer.writeStaticString(cache)
            buffer.writeStaticString("\"}\n")
        case .text:
            writeEscaped(client)
            buffer.writeStaticString(" [")
            writeTime(milliseconds)
            buffer.writeStaticString("Z] \"")
            writeEscaped(exchange.method.rawValue)
            buffer.writeStaticString(" ")
            writeEscaped(LogText.redacted(exchange.target))
            buffer.writeStaticString("\" ")
            LoadedFile.writeNumber(status.rawValue, radix: 10, into: &buffer)
            buffer.writeStaticString(" ")
            LoadedFile.writeNumber(bytes, radix: 10, into: &buffer)
            buffer.writeStaticString(" ")
            LoadedFile.writeNumber(Int(microseconds), radix: 10, into: &buffer)
            buffer.writeStaticString("us ")
            buffer.writeStaticString(cache)
            buffer.writeStaticString("\n")
        }
        if buffer.readableBytes >= Self.flushBytes {
            flush()
        }
    }

    /// Writes the buffered lines to the sink.
    package func flush() {
        guard buffer.readableBytes > 0 else { return }
        let written = buffer.withUnsafeReadableBytes { sink.write($0) }
        buffer.clear()
        if !written && !reportedFailure {
            reportedFailure = true
            logger.error("The access log cannot be written (errno \(errno)); access-log lines are dropped from now on")
        }
    }

    private func writeTime(_ milliseconds: Int) {
        buffer.writeString(secondText)
        buffer.writeInteger(UInt8(ascii: "0") + UInt8(milliseconds / 100))
        buffer.writeInteger(UInt8(ascii: "0") + UInt8(milliseconds / 10 % 10))
        buffer.writeInteger(UInt8(ascii: "0") + UInt8(milliseconds % 10))
    }

    /// Writes `text` escaped as JSON escapes it (``JSONEscaping``: valid JSON — a `String` is valid UTF-8 — and one line
    /// of plain text whatever a client sent).
    private func writeEscaped(_ text: String) {
        var text = text
        text.withUTF8 { bytes in JSONEscaping.escape(bytes) { buffer.writeBytes($0) } }
    }

    /// `seconds` since 1970 as `YYYY-MM-DDTHH:MM:SS.` (UTC).
    package static func isoSecond(_ seconds: Int) -> String {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
    }
}
