import NIOCore

/// The encode stage: a settled response's head as bytes, in the order HTTP/1.1 sends them — the lead (status and fixed
/// lines), the cached `Date` line, the route's lines, the CORS origin line, the connection line, the tail — and which
/// bytes of its file body go after it. Numbers are formatted in place; nothing else is copied.
package struct ResponseEncoder {
    /// The pieces every head is made of.
    package let blocks: HTTPBlocks

    /// An encoder writing `blocks`' pieces.
    package init(blocks: HTTPBlocks) {
        self.blocks = blocks
    }

    /// Writes `response`'s head into `head` (cleared first), with `date` as its `Date` line, and `Connection:
    /// keep-alive` for an HTTP/1.0 client (`isHTTP10`) it keeps. For a file body, the file's first bytes held in
    /// memory (a TIFF JPEG tile's SOI and tables) travel with the head, and the result is the range of the file itself
    /// to send after it (possibly empty); nil for other bodies.
    ///
    /// - Complexity: O(head length).
    package func encodeHead(_ response: SettledResponse, isHTTP10: Bool, date: ByteBuffer, into head: inout ByteBuffer) -> Range<Int>? {
        head.clear()
        if case .lines(let lines, let blankLine) = response.tail, response.routeText.isEmpty {
            // Every piece is a prepared buffer: copied in one pass into one reserved span. Appending them one by one
            // cost about 370 instructions each (a uniqueness and an exclusivity check per append).
            let connection = response.close ? blocks.connectionClose : isHTTP10 ? blocks.connectionKeepAlive : nil
            let end = blankLine ? blocks.crlf : nil
            let (lead, fixed, route, allow) = (response.lead, response.fixedLines, response.routeLines, response.allowOrigin)
            var length = lead.readableBytes + date.readableBytes + lines.readableBytes + (fixed?.readableBytes ?? 0)
            length += (route?.readableBytes ?? 0) + (allow?.readableBytes ?? 0) + (connection?.readableBytes ?? 0) + (end?.readableBytes ?? 0)
            head.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { out in
                var at = Self.put(lead, into: out, at: 0)
                at = Self.put(fixed, into: out, at: at)
                at = Self.put(date, into: out, at: at)
                at = Self.put(route, into: out, at: at)
                at = Self.put(allow, into: out, at: at)
                at = Self.put(connection, into: out, at: at)
                at = Self.put(lines, into: out, at: at)
                return Self.put(end, into: out, at: at)
            }
            return Self.fileRange(of: response, after: &head)
        }
        head.writeImmutableBuffer(response.lead)
        if let fixed = response.fixedLines { head.writeImmutableBuffer(fixed) }
        head.writeImmutableBuffer(date)
        if let lines = response.routeLines { head.writeImmutableBuffer(lines) }
        if !response.routeText.isEmpty { head.writeString(response.routeText) }
        if let allow = response.allowOrigin { head.writeImmutableBuffer(allow) }
        if response.close {
            head.writeImmutableBuffer(blocks.connectionClose)
        } else if isHTTP10 {
            head.writeImmutableBuffer(blocks.connectionKeepAlive)
        }
        switch response.tail {
        case .lines(let lines, let blankLine):
            head.writeImmutableBuffer(lines)
            if blankLine { head.writeImmutableBuffer(blocks.crlf) }
        case .partial(let etagLine, let range, let size):
            head.writeImmutableBuffer(etagLine)
            head.writeStaticString("Content-Range: bytes ")
            LoadedFile.writeNumber(range.lowerBound, radix: 10, into: &head)
            head.writeInteger(UInt8(ascii: "-"))
            LoadedFile.writeNumber(range.upperBound - 1, radix: 10, into: &head)
            head.writeInteger(UInt8(ascii: "/"))
            LoadedFile.writeNumber(size, radix: 10, into: &head)
            head.writeStaticString("\r\nContent-Length: ")
            LoadedFile.writeNumber(range.count, radix: 10, into: &head)
            head.writeStaticString("\r\n\r\n")
        case .length(let length):
            head.writeStaticString("Content-Length: ")
            LoadedFile.writeNumber(length, radix: 10, into: &head)
            head.writeStaticString("\r\n\r\n")
        }
        return Self.fileRange(of: response, after: &head)
    }

    /// Copies `piece`'s readable bytes (if any) into `out` at offset `at`; returns the offset after them.
    @inline(__always)
    private static func put(_ piece: ByteBuffer?, into out: UnsafeMutableRawBufferPointer, at: Int) -> Int {
        guard let piece else { return at }
        return piece.withUnsafeReadableBytes { bytes in
            out.baseAddress!.advanced(by: at).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            return at + bytes.count
        }
    }

    /// For a file body, writes the file's first bytes held in memory that `response` sends into `head`, and returns
    /// the range of the file itself to send after them; nil for other bodies.
    private static func fileRange(of response: SettledResponse, after head: inout ByteBuffer) -> Range<Int>? {
        guard case .region(let file, let range) = response.body else { return nil }
        let prefixLength = file.prefix.readableBytes
        if range.lowerBound < prefixLength {
            let end = min(range.upperBound, prefixLength)
            head.writeImmutableBuffer(file.prefix.getSlice(at: file.prefix.readerIndex + range.lowerBound, length: end - range.lowerBound)!)
        }
        return max(range.lowerBound, prefixLength) - prefixLength..<max(range.upperBound, prefixLength) - prefixLength
    }
}
