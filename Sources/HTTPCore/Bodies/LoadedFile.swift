import NIOCore

/// A file's bytes ready to send: the `ETag` and `Content-Length` header lines and the blank line, followed by the
/// body, in one buffer. Responses send slices of it: no copy, no formatting.
///
/// This is what the tile cache holds; its ``cost`` is what counts against the budget.
package struct LoadedFile: Sendable {
    /// `ETag: "…"\r\nContent-Length: N\r\n\r\n` then the body.
    package let buffer: ByteBuffer
    /// The length of the `ETag: "…"\r\n` line.
    package let etagLineLength: Int
    /// Where the body starts in ``buffer``.
    package let bodyOffset: Int
    /// Set on an entry a cache loaded ahead of any request, until a request first takes it.
    package var claimMark: ClaimMark?

    /// Wraps a buffer already laid out as `ETag` line, `Content-Length` line, blank line and body (the file loader
    /// reads the body straight into place).
    package init(preparedBuffer: ByteBuffer, etagLineLength: Int, bodyOffset: Int) {
        self.buffer = preparedBuffer
        self.etagLineLength = etagLineLength
        self.bodyOffset = bodyOffset
    }

    /// The body's length in bytes.
    package var bodyLength: Int { buffer.readableBytes - bodyOffset }

    /// The body's bytes (after the head), not copied.
    package var body: ByteBufferView { buffer.readableBytesView.dropFirst(bodyOffset) }

    /// The bytes this entry holds, for the cache budget.
    package var cost: Int { buffer.readableBytes }

    /// The entity tag with its quotes, as sent.
    package var etag: ByteBufferView { Self.etag(in: buffer, etagLineLength: etagLineLength) }

    /// The header lines and blank line, without the body (for `HEAD`).
    package var head: ByteBuffer { buffer.getSlice(at: buffer.readerIndex, length: bodyOffset)! }

    /// The `ETag` line alone (for 304).
    package var etagLine: ByteBuffer { Self.etagLine(in: buffer, etagLineLength: etagLineLength) }

    /// Bytes `range` of the body, without a copy.
    package func bodySlice(_ range: Range<Int>) -> ByteBuffer {
        buffer.getSlice(at: buffer.readerIndex + bodyOffset + range.lowerBound, length: range.count)!
    }

    /// The entity tag (quotes included) of a buffer starting with the head ``writeHead(into:size:seconds:nanoseconds:)``
    /// wrote, whose `ETag` line is `etagLineLength` bytes long.
    package static func etag(in buffer: ByteBuffer, etagLineLength: Int) -> ByteBufferView {
        let view = buffer.readableBytesView
        return view[(view.startIndex + 6)..<(view.startIndex + etagLineLength - 2)]
    }

    /// The `ETag` line of such a buffer.
    package static func etagLine(in buffer: ByteBuffer, etagLineLength: Int) -> ByteBuffer {
        buffer.getSlice(at: buffer.readerIndex, length: etagLineLength)!
    }

    /// The most bytes ``writeHead(into:size:seconds:nanoseconds:)`` writes.
    package static let maxHeadLength = 128

    /// Writes the `ETag` line, the `Content-Length` line and the blank line of a file of `size` bytes last modified at
    /// `seconds` and `nanoseconds` since 1970 into `buffer`, formatting the numbers in place (no `String`); returns the
    /// `ETag` line's length.
    ///
    /// The strong entity tag is `"size-seconds.nanoseconds"` in hexadecimal: stable across restarts, different after
    /// any rewrite that changes the size or the timestamp.
    package static func writeHead(into buffer: inout ByteBuffer, size: Int, seconds: Int, nanoseconds: Int) -> Int {
        // Formatted on the stack and written to the buffer once: a dozen small writes cost about 100 instructions
        // each in the buffer's checks alone (this runs for every tile read and every file opened).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxHeadLength) { scratch in
            var at = put("ETag: \"", into: scratch, at: 0)
            at = put(size, radix: 16, into: scratch, at: at)
            at = put("-", into: scratch, at: at)
            at = put(seconds, radix: 16, into: scratch, at: at)
            at = put(".", into: scratch, at: at)
            at = put(nanoseconds, radix: 16, into: scratch, at: at)
            let etagLineLength = put("\"\r\n", into: scratch, at: at)
            at = put("Content-Length: ", into: scratch, at: etagLineLength)
            at = put(size, radix: 10, into: scratch, at: at)
            at = put("\r\n\r\n", into: scratch, at: at)
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(scratch)[..<at]))
            return etagLineLength
        }
    }

    /// Copies `literal` into `scratch` at `at`; returns the offset after it.
    private static func put(_ literal: StaticString, into scratch: UnsafeMutableBufferPointer<UInt8>, at: Int) -> Int {
        let count = literal.utf8CodeUnitCount
        precondition(at + count <= scratch.count, "a file's head is longer than maxHeadLength")
        (scratch.baseAddress! + at).update(from: literal.utf8Start, count: count)
        return at + count
    }

    /// Writes `value`'s digits in `radix` (lowercase), with a `-` if negative, into `scratch` at `at`; returns the
    /// offset after them.
    private static func put(_ value: Int, radix: Int, into scratch: UnsafeMutableBufferPointer<UInt8>, at: Int) -> Int {
        var at = at
        if value < 0 { at = put("-", into: scratch, at: at) }
        var magnitude = value.magnitude
        let base = UInt(radix)
        var count = 0
        repeat {
            magnitude /= base
            count += 1
        } while magnitude > 0
        precondition(at + count <= scratch.count, "the digits do not fit")
        magnitude = value.magnitude
        for offset in stride(from: at + count - 1, through: at, by: -1) {
            let digit = UInt8(magnitude % base)
            scratch[offset] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            magnitude /= base
        }
        return at + count
    }

    /// Writes `value`'s digits in `radix` (lowercase), with a `-` if negative.
    package static func writeNumber(_ value: Int, radix: Int, into buffer: inout ByteBuffer) {
        // A sign and 64 binary digits at most.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65) { scratch in
            let count = put(value, radix: radix, into: scratch, at: 0)
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(scratch)[..<count]))
        }
    }
}
