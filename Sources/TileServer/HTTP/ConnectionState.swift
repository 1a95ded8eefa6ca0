import NIOCore
import NIOHTTP1

/// One connection's state, changed only through its transitions, each of which checks that it is allowed (as
/// SwiftNIO's `HTTPServerPipelineHandler` keeps its state). ``ConnectionHandler`` owns one.
///
/// The phase says what the connection is doing; requests that arrive while a response is awaited queue behind it,
/// in order. (Per-phase deadlines, when they come, belong in the phases.)
struct ConnectionState {
    /// What the connection is doing.
    enum Phase {
        /// Ready for the next request: nothing is being received or answered.
        case idle
        /// NIO's decoder delivered this request head; the request is answered at its end. `bodyBytes`: body bytes
        /// received so far (read and ignored).
        case receiving(HTTPRequestHead, bodyBytes: Int)
        /// A response is being produced elsewhere (``Response/later``) for this exchange: requests that arrive queue,
        /// and reads from the socket are held back.
        case awaiting(Exchange)
        /// The connection closes once what was written has been sent; nothing more is read or answered.
        case closing
    }

    /// What reaches the connection: a request read by ``SimpleRequestDecoder`` or a part of one NIO's decoder read.
    enum Inbound {
        case simple(SimpleRequest)
        case part(HTTPServerRequestPart)
    }

    /// The current phase.
    private(set) var phase = Phase.idle
    /// Requests and request parts received while a response was awaited, in order.
    private(set) var queue = CircularBuffer<Inbound>(initialCapacity: 4)
    /// A `read` was asked for while reads were held back.
    private(set) var readHeld = false
    /// Shutdown asked the connection to finish what it has received.
    private(set) var quiescing = false
    /// The client closed its side: close once everything received is answered.
    private(set) var inputClosed = false
    /// A decoding error to answer once the responses queued before it are written.
    private(set) var deferredError: RequestError?
    /// The socket's send queue is over its high-water mark: nothing more is read until it drains (a client that
    /// does not read its answers stops being read, so its pipelined requests cannot pile up answers in memory).
    private(set) var unwritable = false

    /// Whether the connection is closing.
    var isClosing: Bool {
        if case .closing = phase { return true }
        return false
    }

    /// The exchange whose response is awaited, if any.
    var awaited: Exchange? {
        if case .awaiting(let exchange) = phase { return exchange }
        return nil
    }

    /// Whether what arrives now must wait: a response is awaited, earlier arrivals are still queued, or the send
    /// queue is full (no more answers are produced until the client takes some).
    var mustQueue: Bool {
        if case .awaiting = phase { return true }
        return !queue.isEmpty || unwritable
    }

    /// Whether everything received has been answered (no request being received, awaited or queued).
    var isIdle: Bool {
        guard case .idle = phase else { return false }
        return queue.isEmpty
    }

    /// Whether reads from the socket are held back (a response awaited, requests queued, the send queue full, or
    /// closing).
    var holdsReads: Bool { mustQueue || isClosing }

    /// Whether the connection should close now: idle, and shutdown or the client's half-close asked for it.
    var shouldCloseWhenIdle: Bool { isIdle && (quiescing || inputClosed) }

    /// Whether the response to `exchange`, written now, must close the connection: the client asked, or shutdown
    /// is under way and nothing else is queued.
    func mustClose(_ exchange: Exchange) -> Bool {
        !exchange.keepAlive || (quiescing && queue.isEmpty)
    }

    /// Queues `inbound` behind the awaited response.
    mutating func enqueue(_ inbound: Inbound) {
        precondition(!isClosing, "nothing is queued on a closing connection")
        queue.append(inbound)
    }

    /// Whether the connection may handle what arrives now: no response awaited, the send queue not full, and not
    /// closing.
    var mayProceed: Bool {
        switch phase {
        case .idle, .receiving: !unwritable
        case .awaiting, .closing: false
        }
    }

    /// The next queued arrival (a request, or the next part of the one being received), if the connection may handle
    /// it now.
    mutating func nextQueued() -> Inbound? {
        guard mayProceed else { return nil }
        return queue.popFirst()
    }

    /// NIO's decoder delivered a request head.
    mutating func receiveHead(_ head: HTTPRequestHead) {
        guard case .idle = phase else { preconditionFailure("a request head arrived in phase \(phase)") }
        phase = .receiving(head, bodyBytes: 0)
    }

    /// NIO's decoder delivered `count` body bytes of the request being received: the body's length so far (0 when
    /// no request is being received: it was refused at once).
    mutating func receiveBody(count: Int) -> Int {
        guard case .receiving(let head, let bodyBytes) = phase else { return 0 }
        phase = .receiving(head, bodyBytes: bodyBytes + count)
        return bodyBytes + count
    }

    /// NIO's decoder delivered a request's end: the head to answer (`nil` when it was refused at once).
    mutating func receiveEnd() -> HTTPRequestHead? {
        guard case .receiving(let head, _) = phase else { return nil }
        phase = .idle
        return head
    }

    /// The response to `exchange` will come later.
    mutating func awaitResponse(for exchange: Exchange) {
        guard case .idle = phase else { preconditionFailure("a response was awaited in phase \(phase)") }
        phase = .awaiting(exchange)
    }

    /// The awaited response arrived: the exchange it answers (`nil` when none is awaited any more: closed).
    mutating func responseArrived() -> Exchange? {
        guard case .awaiting(let exchange) = phase else { return nil }
        phase = .idle
        return exchange
    }

    /// The decoder failed: the request being received is dropped; returns whether the error must wait for the
    /// responses queued before it (it is then kept as ``deferredError``).
    mutating func decodingFailed(_ error: RequestError) -> Bool {
        if case .receiving = phase { phase = .idle }
        guard mustQueue else { return false }
        deferredError = error
        return true
    }

    /// The deferred decoding error, if the connection may answer it now.
    mutating func takeDeferredError() -> RequestError? {
        guard mayProceed, let error = deferredError else { return nil }
        deferredError = nil
        return error
    }

    /// Shutdown asked the connection to finish.
    mutating func quiesce() { quiescing = true }

    /// The client closed its side.
    mutating func closeInput() { inputClosed = true }

    /// Stops answering: the connection closes once everything written has been sent.
    mutating func close() {
        phase = .closing
        queue.removeAll()
    }

    /// The socket's send queue went over its high-water mark (`false`) or back under its low one (`true`).
    mutating func writabilityChanged(writable: Bool) { unwritable = !writable }

    /// A `read` asked while reads are held back; returns whether it may go through now.
    mutating func askRead() -> Bool {
        guard holdsReads else { return true }
        readHeld = true
        return false
    }

    /// Whether a held `read` may go through now (and forgets it).
    mutating func releaseHeldRead() -> Bool {
        guard readHeld, !holdsReads else { return false }
        readHeld = false
        return true
    }
}
