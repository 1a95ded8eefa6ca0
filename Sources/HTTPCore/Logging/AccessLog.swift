import Glibc
import JSONText
import Logging
import NIOCore
import NIOHTTP1

/// One event loop's access log: one line per answered request — time (UTC, milliseconds), client address, method,
/// target, protocol, status, body bytes, duration in microseconds, and for tiles whether the cache had them — in the text or
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
        let line = Line(exchange: exchange, status: status, bytes: bytes, microseconds: microseconds, client: client, milliseconds: milliseconds)
        for piece in format == .json ? Self.jsonLine : Self.textLine {
            switch piece {
            case .text(let text): buffer.writeStaticString(text)
            case .field(let field): write(field, of: line)
            }
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

    /// One answered request's fields, as ``record(_:status:bytes:microseconds:client:)`` was given them.
    private struct Line {
        let exchange: Exchange
        let status: HTTPStatus
        let bytes: Int
        let microseconds: Int64
        let client: String
        let milliseconds: Int
    }

    /// A field of a line; every format writes each the same way (text escaped as JSON escapes it).
    private enum Field {
        case time, client, method, target, `protocol`, status, bytes, duration, cache
    }

    /// A line's layout: fields and the fixed text between them.
    private enum Piece {
        case text(StaticString)
        case field(Field)
    }

    /// `{"time":"…Z","client":"…","method":"…","target":"…","protocol":"HTTP/1.1","status":N,"bytes":N,"duration_us":N,
    /// "cache":"…"}`
    private static let jsonLine: [Piece] = [
        .text("{\"time\":\""), .field(.time), .text("Z\",\"client\":\""), .field(.client), .text("\",\"method\":\""), .field(.method),
        .text("\",\"target\":\""), .field(.target), .text("\",\"protocol\":\""), .field(.protocol), .text("\",\"status\":"), .field(.status),
        .text(",\"bytes\":"), .field(.bytes),
        .text(",\"duration_us\":"), .field(.duration), .text(",\"cache\":\""), .field(.cache), .text("\"}\n"),
    ]

    /// `CLIENT [TIME Z] "METHOD TARGET PROTOCOL" STATUS BYTES DURATIONus CACHE`, the request part as the common log
    /// format writes it.
    private static let textLine: [Piece] = [
        .field(.client), .text(" ["), .field(.time), .text("Z] \""), .field(.method), .text(" "), .field(.target), .text(" "),
        .field(.protocol), .text("\" "),
        .field(.status), .text(" "), .field(.bytes), .text(" "), .field(.duration), .text("us "), .field(.cache), .text("\n"),
    ]

    private func write(_ field: Field, of line: Line) {
        switch field {
        case .time: writeTime(line.milliseconds)
        case .client: writeEscaped(line.client)
        case .method: writeEscaped(line.exchange.method.rawValue)
        case .target: writeEscaped(LogText.redacted(line.exchange.target))
        case .protocol:
            buffer.writeStaticString(line.exchange.isHTTP2 ? "HTTP/2" : line.exchange.isHTTP10 ? "HTTP/1.0" : "HTTP/1.1")
        case .status: LoadedFile.writeNumber(line.status.rawValue, radix: 10, into: &buffer)
        case .bytes: LoadedFile.writeNumber(line.bytes, radix: 10, into: &buffer)
        case .duration: LoadedFile.writeNumber(Int(line.microseconds), radix: 10, into: &buffer)
        case .cache:
            switch line.exchange.cache {
            case .hit: buffer.writeStaticString("hit")
            case .miss: buffer.writeStaticString("miss")
            case .join: buffer.writeStaticString("join")
            case .none: buffer.writeStaticString("-")
            }
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
