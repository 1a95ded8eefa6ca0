import NIOCore

extension LoadedFile {
    /// Prepares `bytes` as a body with the strong entity tag `etag` (quotes included), copying them once.
    package init(bytes: [UInt8], etag: String) {
        let head = LoadedFile(headOf: bytes.count, etag: etag, reservingBody: true)
        var buffer = head.buffer
        buffer.writeBytes(bytes)
        self.init(preparedBuffer: buffer, etagLineLength: head.etagLineLength, bodyOffset: head.bodyOffset)
    }

    /// The `ETag` (`etag`, quotes included) and `Content-Length` (`size`) lines and the blank line, without the body;
    /// with `reservingBody`, in a buffer with room for the `size` bytes of the body after them (one allocation).
    package init(headOf size: Int, etag: String, reservingBody: Bool = false) {
        var buffer = ByteBuffer()
        // "ETag: " CRLF "Content-Length: " up to 19 digits CRLF CRLF: 47 bytes besides the tag.
        buffer.reserveCapacity(etag.utf8.count + 47 + (reservingBody ? size : 0))
        buffer.writeString("ETag: \(etag)\r\n")
        let etagLineLength = buffer.writerIndex
        buffer.writeString("Content-Length: \(size)\r\n\r\n")
        self.init(preparedBuffer: buffer, etagLineLength: etagLineLength, bodyOffset: buffer.writerIndex)
    }

    /// The head of a response whose body is not at hand: the `ETag` line `ETag: etag` and the blank line, with no
    /// `Content-Length` line and no body. For `HEAD` only (HTTP lets a `HEAD` answer leave the length out).
    package init(headWithoutLength etag: String) {
        let etagLine = "ETag: \(etag)\r\n"
        var buffer = ByteBuffer()
        buffer.writeString(etagLine)
        buffer.writeStaticString("\r\n")
        self.init(preparedBuffer: buffer, etagLineLength: etagLine.utf8.count, bodyOffset: buffer.writerIndex)
    }
}
