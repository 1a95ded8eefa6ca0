import NIOCore

/// Puts settled responses on a connection's channel: the head ``ResponseEncoder`` encodes into one reused buffer, then
/// the body — bytes, or a file's range sent with `sendfile` (read and sent as bytes on a TLS connection) — and gives a
/// body's render budget back once the socket has taken it (or the write failed). Writes are not flushed here: the
/// connection flushes once per read burst. Lives on the connection's event loop.
struct ResponseWriter {
    private let encoder: ResponseEncoder
    private let date: DateHeader
    /// Whether a file's range is read and written as bytes: on a TLS connection, which encrypts in this process, so
    /// that the kernel cannot send the page cache itself.
    private let filesAsBytes: Bool
    /// Whether the channel is a socket of its own, which `TCP_CORK` applies to (not an HTTP/2 stream).
    private let corks: Bool
    /// Reused for response heads: written, sent, and (once the socket has taken it) written over again.
    private var headScratch: ByteBuffer

    /// A writer of responses made of `blocks`, dated by `date` (the event loop's), reading file bodies into memory when
    /// `filesAsBytes`, corking the socket around a file's region when `corks`.
    init(blocks: HTTPBlocks, date: DateHeader, filesAsBytes: Bool = false, corks: Bool = true) {
        self.encoder = ResponseEncoder(blocks: blocks)
        self.date = date
        self.filesAsBytes = filesAsBytes
        self.corks = corks
        self.headScratch = ByteBufferAllocator().buffer(capacity: 512)
    }

    /// Writes `settled`'s head and body to `context`. `cork` is called before a file's range is written, so that the
    /// head and the file leave in one segment. An event stream's head is written, and its source returned: its events
    /// follow as they come.
    ///
    /// - Complexity: O(header lines); the body is not copied.
    mutating func write(
        _ settled: SettledResponse, isHTTP10: Bool, context: ChannelHandlerContext, cork: () -> Void
    ) -> (any EventSource)? {
        let fileRange = encoder.encodeHead(settled, isHTTP10: isHTTP10, date: date.current(), into: &headScratch)
        context.write(NIOAny(headScratch), promise: nil)
        let written = settled.reservation.map { reservation in
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenComplete { _ in reservation.release() }
            return promise
        }
        switch settled.body {
        case .none:
            written?.succeed()
        case .bytes(let body):
            context.write(NIOAny(body), promise: written)
        case .region(let file, _):
            guard let range = fileRange, !range.isEmpty else {
                written?.succeed()
                break
            }
            if filesAsBytes {
                guard let bytes = Self.read(range, of: file) else {
                    // The head promised these bytes: the connection ends, as when sendfile fails.
                    written?.fail(ChannelError.ioOnClosedChannel)
                    context.close(promise: nil)
                    break
                }
                context.write(NIOAny(bytes), promise: written)
                break
            }
            if corks { cork() }
            let sent = context.eventLoop.makePromise(of: Void.self)
            sent.futureResult.assumeIsolated().whenComplete { result in
                // The file stays open until the kernel has sent it.
                withExtendedLifetime(file) {}
                switch result {
                case .success: written?.succeed()
                case .failure(let error): written?.fail(error)
                }
            }
            let region = FileRegion(fileHandle: file.handle, readerIndex: file.offset + range.lowerBound, endIndex: file.offset + range.upperBound)
            context.write(NIOAny(IOData.fileRegion(region)), promise: sent)
        case .events(let source):
            return source
        }
        return nil
    }

    /// `range` of `file`'s bytes (relative to its offset); nil when the file is shorter or unreadable.
    ///
    /// - Complexity: O(`range.count`), one system call for a range in the page cache.
    private static func read(_ range: Range<Int>, of file: OpenFile) -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: range.count)
        let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: range.count) { out in
            FileReads.readFully(file.descriptor, into: out.baseAddress!, at: file.offset + range.lowerBound, size: range.count, pageCacheOnly: false)
                .0
        }
        return count == range.count ? buffer : nil
    }
}
