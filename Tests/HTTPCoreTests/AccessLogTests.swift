import Foundation
import NIOHTTP1
import Testing

@testable import HTTPCore

/// Access-log lines formatted without a socket: whatever the target holds, a line is one line and valid JSON.
@Suite struct AccessLogTests {
    /// The lines `body` logs, read back through a pipe.
    static func lines(_ format: AccessLogFormat, _ body: (AccessLog) -> Void) throws -> [String] {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        defer { close(descriptors[0]) }
        let log = AccessLog(format: format, sink: AccessLogSink(descriptor: descriptors[1]), logger: .init(label: "test"))
        body(log)
        log.flush()
        close(descriptors[1])
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let count = read(descriptors[0], &chunk, chunk.count), count > 0 {
            data.append(contentsOf: chunk[..<count])
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    static let hostile = "/a\"b\\c\u{01}d\u{7F}é"

    @Test func jsonLinesAreValidWhateverTheTarget() throws {
        var exchange = Exchange(head: HTTPRequestHead(version: .http1_1, method: .HEAD, uri: Self.hostile))
        exchange.cache = .miss
        let lines = try Self.lines(.json) { log in
            log.record(exchange, status: .notFound, bytes: 12, microseconds: 345, client: "::1")
            log.record(Exchange(malformedAt: .now()), status: .badRequest, bytes: 0, microseconds: 1, client: "-")
        }
        #expect(lines.count == 2)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(record["target"] as? String == Self.hostile)
        #expect(record["method"] as? String == "HEAD")
        #expect(record["status"] as? Int == 404 && record["bytes"] as? Int == 12 && record["duration_us"] as? Int == 345)
        #expect(record["cache"] as? String == "miss" && record["client"] as? String == "::1")
        let malformed = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(malformed["method"] as? String == "-" && malformed["status"] as? Int == 400)
    }

    @Test func textLinesStayOneLine() throws {
        let exchange = Exchange(head: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/x\r\ny"))
        let lines = try Self.lines(.text) { log in
            log.record(exchange, status: .ok, bytes: 5, microseconds: 7, client: "127.0.0.1")
        }
        #expect(lines.count == 1)
        #expect(lines[0].hasPrefix("127.0.0.1 ["))
        #expect(lines[0].hasSuffix("] \"GET /x\\r\\ny HTTP/1.1\" 200 5 7us -"), "\(lines[0])")
    }

    @Test func linesBeyondTheBufferAreWrittenAsTheyFill() throws {
        let exchange = Exchange(head: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/" + String(repeating: "t", count: 200)))
        let lines = try Self.lines(.json) { log in
            for _ in 0..<150 { log.record(exchange, status: .ok, bytes: 1, microseconds: 1, client: "127.0.0.1") }
        }
        #expect(lines.count == 150)  // about 43 KiB: one write as the buffer fills, one at the flush (a pipe holds 64 KiB)
        #expect(lines.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
    }
}
