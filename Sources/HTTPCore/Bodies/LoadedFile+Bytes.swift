import NIOCore

extension LoadedFile {
    /// Prepares `bytes` as a body with the strong entity tag `etag` (quotes included), copying them once.
    package init(bytes: [UInt8], etag: String) {
        var (buffer, etagLineLength) = Self.head(of: bytes.count, etag: etag, reservingBody: true)
        let bodyOffset = buffer.writerIndex
        buffer.writeBytes(bytes)
        self.init(preparedBuffer: buffer, etagLineLength: etagLineLength, bodyOffset: bodyOffset)
    }

    /// The head of `body` with entity tag `etag` (quotes included) and the body, in one buffer: one copy of the body.
    package init(body: ByteBufferView, etag: String) {
        var (buffer, etagLineLength) = Self.head(of: body.count, etag: etag, reservingBody: true)
        let bodyOffset = buffer.writerIndex
        buffer.writeBytes(body)
        self.init(preparedBuffer: buffer, etagLineLength: etagLineLength, bodyOffset: bodyOffset)
    }

    /// The `ETag` (`etag`, quotes included) and `Content-Length` (`size`) lines and the blank line, without the body;
    /// with `reservingBody`, in a buffer with room for the `size` bytes of the body after them (one allocation).
    package init(headOf size: Int, etag: String, reservingBody: Bool = false) {
        let (buffer, etagLineLength) = Self.head(of: size, etag: etag, reservingBody: reservingBody)
        self.init(preparedBuffer: buffer, etagLineLength: etagLineLength, bodyOffset: buffer.writerIndex)
    }

    /// The buffer of ``init(headOf:etag:reservingBody:)`` and its `ETag` line's length. The initialisers that add a
    /// body write it into this buffer while they hold its only reference: writing into a `LoadedFile`'s copy of it
    /// would copy the storage first.
    package static func head(of size: Int, etag: String, reservingBody: Bool) -> (buffer: ByteBuffer, etagLineLength: Int) {
        var buffer = ByteBuffer()
        // "ETag: " CRLF "Content-Length: " up to 19 digits CRLF CRLF: 47 bytes besides the tag.
        buffer.reserveCapacity(etag.utf8.count + 47 + (reservingBody ? size : 0))
        buffer.writeString("ETag: \(etag)\r\n")
        let etagLineLength = buffer.writerIndex
        buffer.writeStaticString("Content-Length: ")
        writeNumber(size, radix: 10, into: &buffer)
        buffer.writeStaticString("\r\n\r\n")
        return (buffer, etagLineLength)
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
