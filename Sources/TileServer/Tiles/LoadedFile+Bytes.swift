import NIOCore

extension LoadedFile {
    /// Prepares `bytes` as a body with the strong entity tag `etag` (quotes included), copying them once.
    init(bytes: [UInt8], etag: String) {
        let etagLine = "ETag: \(etag)\r\n"
        let lengthLine = "Content-Length: \(bytes.count)\r\n\r\n"
        var buffer = ByteBuffer()
        buffer.reserveCapacity(etagLine.utf8.count + lengthLine.utf8.count + bytes.count)
        buffer.writeString(etagLine)
        buffer.writeString(lengthLine)
        let bodyOffset = buffer.writerIndex
        buffer.writeBytes(bytes)
        self.init(preparedBuffer: buffer, etagLineLength: etagLine.utf8.count, bodyOffset: bodyOffset)
    }

    /// The `ETag` (`etag`, quotes included) and `Content-Length` (`size`) lines and the blank line, without the body.
    init(headOf size: Int, etag: String) {
        var buffer = ByteBuffer()
        buffer.writeString("ETag: \(etag)\r\n")
        let etagLineLength = buffer.writerIndex
        buffer.writeString("Content-Length: \(size)\r\n\r\n")
        self.init(preparedBuffer: buffer, etagLineLength: etagLineLength, bodyOffset: buffer.writerIndex)
    }

    /// The head of a response whose body is not at hand: the `ETag` line `ETag: etag` and the blank line, with no
    /// `Content-Length` line and no body. For `HEAD` only (HTTP lets a `HEAD` answer leave the length out).
    init(headWithoutLength etag: String) {
        let etagLine = "ETag: \(etag)\r\n"
        var buffer = ByteBuffer()
        buffer.writeString(etagLine)
        buffer.writeStaticString("\r\n")
        self.init(preparedBuffer: buffer, etagLineLength: etagLine.utf8.count, bodyOffset: buffer.writerIndex)
    }
}
