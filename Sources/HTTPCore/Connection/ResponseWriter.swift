import NIOCore

/// Puts settled responses on a connection's channel: the head ``ResponseEncoder`` encodes into one reused buffer, then
/// the body — bytes, or a file's range sent with `sendfile` — and gives a body's render budget back once the socket has
/// taken it (or the write failed). Writes are not flushed here: the connection flushes once per read burst. Lives on
/// the connection's event loop.
struct ResponseWriter {
    private let encoder: ResponseEncoder
    private let date: DateHeader
    /// Reused for response heads: written, sent, and (once the socket has taken it) written over again.
    private var headScratch: ByteBuffer

    /// A writer of responses made of `blocks`, dated by `date` (the event loop's).
    init(blocks: HTTPBlocks, date: DateHeader) {
        self.encoder = ResponseEncoder(blocks: blocks)
        self.date = date
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
            cork()
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
}
