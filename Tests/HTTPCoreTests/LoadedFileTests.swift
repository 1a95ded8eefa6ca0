import NIOCore
import Testing

@testable import HTTPCore

/// A file's prepared head: the `ETag` and `Content-Length` lines every answer from it sends.
@Suite struct LoadedFileTests {
    @Test(arguments: [
        (0, 0, 0), (11_394, 1_796_000_000, 123_456_789), (1 << 40, -86_400, 999_999_999), (Int.max, Int.min, 1),
    ])
    func theHeadIsTheTagAndTheLengthAsText(size: Int, seconds: Int, nanoseconds: Int) {
        var buffer = ByteBuffer(string: "before ")
        let etagLineLength = LoadedFile.writeHead(into: &buffer, size: size, seconds: seconds, nanoseconds: nanoseconds)
        func hex(_ value: Int) -> String { (value < 0 ? "-" : "") + String(value.magnitude, radix: 16) }
        let etagLine = "ETag: \"\(hex(size))-\(hex(seconds)).\(hex(nanoseconds))\"\r\n"
        #expect(buffer.readString(length: 7) == "before ")
        #expect(String(buffer: buffer) == etagLine + "Content-Length: \(size)\r\n\r\n")
        #expect(etagLineLength == etagLine.utf8.count)
        #expect(buffer.readableBytes <= LoadedFile.maxHeadLength)
    }
}
