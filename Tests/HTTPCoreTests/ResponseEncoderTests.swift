import Glibc
import NIOCore
import Testing

@testable import HTTPCore

/// The encode stage without a socket: a settled response's head, byte for byte, and which bytes of a file body follow.
@Suite struct ResponseEncoderTests {
    private let blocks = HTTPBlocks(cors: CORSPolicy(origins: []))
    private let date = ByteBuffer(string: "Date: Mon, 07 Dec 2026 06:40:00 GMT\r\n")

    private func head(_ response: SettledResponse, isHTTP10: Bool = false) -> (String, Range<Int>?) {
        var buffer = ByteBuffer()
        let range = ResponseEncoder(blocks: blocks).encodeHead(response, isHTTP10: isHTTP10, date: date, into: &buffer)
        return (String(buffer: buffer), range)
    }

    @Test func aPartialAnswerSaysItsRangeAndLength() {
        let settled = SettledResponse(
            status: .partialContent, lead: blocks.statusLine(.partialContent), fixedLines: ByteBuffer(string: "Content-Type: image/jpeg\r\n"),
            routeLines: ByteBuffer(string: "X-Cache: hit\r\n"), routeText: "", allowOrigin: nil, close: false,
            tail: .partial(etagLine: ByteBuffer(string: "ETag: \"a\"\r\n"), range: 10..<20, size: 1000),
            body: .bytes(ByteBuffer(string: "0123456789")),
            bodyBytes: 10, reservation: nil)
        let (text, range) = head(settled)
        #expect(
            text
                == "HTTP/1.1 206 Partial Content\r\nContent-Type: image/jpeg\r\nDate: Mon, 07 Dec 2026 06:40:00 GMT\r\nX-Cache: hit\r\n"
                + "ETag: \"a\"\r\nContent-Range: bytes 10-19/1000\r\nContent-Length: 10\r\n\r\n")
        #expect(range == nil)
    }

    @Test func theConnectionLineFollowsTheAnswerAndTheClient() {
        func settled(close: Bool) -> SettledResponse {
            SettledResponse(
                status: .ok, lead: blocks.statusLine(.ok), fixedLines: nil, routeLines: nil, routeText: "X-A: 1\r\n",
                allowOrigin: ByteBuffer(string: "Access-Control-Allow-Origin: https://a.example\r\n"), close: close, tail: .length(0),
                body: .none, bodyBytes: 0, reservation: nil)
        }
        #expect(head(settled(close: true)).0.contains("https://a.example\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"))
        #expect(head(settled(close: false), isHTTP10: true).0.contains("Connection: keep-alive\r\nContent-Length: 0\r\n\r\n"))
        #expect(!head(settled(close: false)).0.contains("Connection:"))
    }

    /// A file region's bytes held in memory (a TIFF JPEG tile's tables) go with the head; the range left is the
    /// file's own, shifted past them.
    @Test func aFilePrefixTravelsWithTheHead() throws {
        var template = Array("/tmp/tiler-encoder-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        try #require(descriptor >= 0)
        unlink(template)
        let bytes = [UInt8](repeating: 0x41, count: 100)
        #expect(write(descriptor, bytes, bytes.count) == 100)
        var status = stat()
        fstat(descriptor, &status)
        let file = OpenFile(
            descriptor: descriptor, prefix: [0xFF, 0xD8, 0x01, 0x02], offset: 20, length: 50, fileSize: 100, modified: status.st_mtim, etag: "\"t\"")
        let settled = SettledResponse(
            status: .partialContent, lead: blocks.statusLine(.partialContent), fixedLines: nil, routeLines: nil, routeText: "", allowOrigin: nil,
            close: false, tail: .lines(ByteBuffer(), blankLine: true), body: .region(file, 2..<30), bodyBytes: 28, reservation: nil)
        var buffer = ByteBuffer()
        let range = ResponseEncoder(blocks: blocks).encodeHead(settled, isHTTP10: false, date: date, into: &buffer)
        #expect(range == 0..<26)
        #expect(Array(buffer.readableBytesView.suffix(2)) == [0x01, 0x02])
    }
}
