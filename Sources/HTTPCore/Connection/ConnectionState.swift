import NIOCore
import NIOHTTP1

/// One connection's whole lifecycle as one state machine — reading, answering, pipelining, back-pressure, keep-alive,
/// lingering close — with the deadline of each state kept in the state itself, changed only through transitions that
/// check they are allowed (as SwiftNIO's `HTTPServerPipelineHandler` keeps its state). ``ConnectionHandler`` owns
/// one and acts on what its transitions return; nothing else about the connection is kept beside it.
///
/// Deadlines (``ConnectionLimits``): a request must arrive whole — head and any body a `GET` declares — within the
/// head timeout of its first byte (then 408); a connection may wait for its next request for the idle timeout (a new
/// one for the head timeout) and is then closed; whatever the phase, a client that takes none of the bytes queued
/// for it for the send timeout is dropped with a reset; a lingering close lasts at most ``ConnectionLimits/lingerTime``
/// and ``ConnectionLimits/lingerBytes``.
///
/// It never reads the clock: every transition that starts or checks a deadline is given `now`, so that its tests
/// drive it with a clock of their own, to the millisecond.
package struct ConnectionState {
    package let limits: ConnectionLimits
    /// The current phase.
    package private(set) var phase: Phase
    /// Requests and request parts received while a response was awaited, in order.
    package private(set) var queue = CircularBuffer<Inbound>(initialCapacity: 4)
    package private(set) var heldRead = HeldRead.none
    package private(set) var ending: Ending = []
    /// A decoding error to answer once the responses queued before it are written.
    package private(set) var deferredError: RequestError?
    package private(set) var sendQueue = SendQueue.accepting
    package private(set) var output = Output.flushed
    /// An upload's body waits behind a file write: reads from the socket are held back until it is written.
    package private(set) var bodyHeld = false
    /// Response bytes queued in the channel at the last tick (0: none), and when the client last took some.
    private var lastBuffered = 0
    private var lastSendProgress: NIODeadline

    /// A new connection at `now`: waiting for its first request for the head timeout.
    package init(limits: ConnectionLimits, now: NIODeadline) {
        self.limits = limits
        phase = .waiting(until: now + limits.headTimeout, afterAnswer: false)
        lastSendProgress = now
    }

    // MARK: Arrivals

    /// Bytes arrived from the socket at `now`: the first byte of a request starts its head timeout.
    package mutating func bytesArrived(_ count: Int, now: NIODeadline) -> Arrival {
        switch phase {
        case .waiting:
            phase = .reading(until: now + limits.headTimeout)
            return .decode
        case .lingering(let deadline, let discarded):
            let total = discarded + count
            guard total <= limits.lingerBytes else { return .close }
            phase = .lingering(until: deadline, discarded: total)
            return .discard
        case .closed:
            return .close
        default:
            return .decode
        }
    }

    /// Queues `inbound` behind the awaited response.
    package mutating func enqueue(_ inbound: Inbound) {
        precondition(!isClosing, "nothing is queued on a closing connection")
        queue.append(inbound)
    }

    /// The next queued arrival (a request, or the next part of the one being received), if the connection may handle
    /// it now.
    package mutating func nextQueued() -> Inbound? {
        guard mayProceed else { return nil }
        return queue.popFirst()
    }

    /// A complete request (read by ``SimpleRequestDecoder``, or refused at its head) is being answered.
    package mutating func requestComplete() {
        guard isBetweenRequests else { preconditionFailure("a request arrived in phase \(phase)") }
        phase = .answering
    }

    /// NIO's decoder delivered a request head at `now`; `bodyFollows` when it declares a body, which is then due
    /// within the head timeout of the request's first byte.
    package mutating func receiveHead(_ head: HTTPRequestHead, bodyFollows: Bool, now: NIODeadline) {
        let deadline: NIODeadline?
        switch phase {
        case .reading(let until): deadline = bodyFollows ? until : nil
        case .waiting, .answering: deadline = bodyFollows ? now + limits.headTimeout : nil
        default: preconditionFailure("a request head arrived in phase \(phase)")
        }
        phase = .receiving(head, bodyBytes: 0, until: deadline)
    }

    /// NIO's decoder delivered `count` body bytes of the request being received: the body's length so far (0 when
    /// no request is being received: it was refused at once).
    package mutating func receiveBody(count: Int) -> Int {
        guard case .receiving(let head, let bodyBytes, let deadline) = phase else { return 0 }
        phase = .receiving(head, bodyBytes: bodyBytes + count, until: deadline)
        return bodyBytes + count
    }

    /// NIO's decoder delivered `count` bytes of an upload's body at `now`: the body, however long, is due as long as
    /// bytes keep coming — the head timeout runs again from each arrival (a stalled client gets 408).
    package mutating func receiveUploadBody(count: Int, now: NIODeadline) {
        guard case .receiving(let head, let bodyBytes, _) = phase else { return }
        phase = .receiving(head, bodyBytes: bodyBytes + count, until: now + limits.headTimeout)
    }

    /// Holds reads back while an upload's body waits for the disk (`true`), or lets them go again.
    package mutating func holdBody(_ held: Bool) { bodyHeld = held }

    /// NIO's decoder delivered a request's end: the head to answer (`nil` when it was refused at once).
    package mutating func receiveEnd() -> HTTPRequestHead? {
        guard case .receiving(let head, _, _) = phase else { return nil }
        phase = .answering
        return head
    }

    /// The decoder failed: the request being received is dropped; returns whether the error must wait for the
    /// responses queued before it (it is then kept as ``deferredError``).
    package mutating func decodingFailed(_ error: RequestError) -> Bool {
        if case .receiving = phase { phase = .answering }
        guard mustQueue else { return false }
        deferredError = error
        return true
    }

    /// The deferred decoding error, if the connection may answer it now.
    package mutating func takeDeferredError() -> RequestError? {
        guard mayProceed, let error = deferredError else { return nil }
        deferredError = nil
        return error
    }

    // MARK: Answers

    /// The response to `exchange` will come later.
    package mutating func awaitResponse(for exchange: Exchange) {
        guard case .answering = phase else { preconditionFailure("a response was awaited in phase \(phase)") }
        phase = .awaiting(exchange)
    }

    /// The awaited response arrived: the exchange it answers (`nil` when none is awaited any more: closed).
    package mutating func responseArrived() -> Exchange? {
        guard case .awaiting(let exchange) = phase else { return nil }
        phase = .answering
        return exchange
    }

    /// A response was written at `now` and the connection stays open: with nothing else received, it waits for the
    /// next request for the idle timeout.
    package mutating func answered(now: NIODeadline) {
        output = output == .corked ? .corked : .unflushed
        guard isIdle else { return }
        phase = .waiting(until: now + limits.idleTimeout, afterAnswer: true)
    }

    /// Shutdown asked the connection to finish.
    package mutating func quiesce() { ending.insert(.quiescing) }

    /// The client closed its side.
    package mutating func closeInput() { ending.insert(.inputClosed) }

    // MARK: Output

    /// A file body is about to be sent with `sendfile`: returns whether `TCP_CORK` must be turned on now.
    package mutating func cork() -> Bool {
        guard output != .corked else { return false }
        output = .corked
        return true
    }

    /// The output is flushed now: returns whether a flush is needed and whether `TCP_CORK` must be turned off.
    package mutating func flushed() -> (flush: Bool, uncork: Bool) {
        defer { output = .flushed }
        switch output {
        case .flushed: return (false, false)
        case .unflushed: return (true, false)
        case .corked: return (true, true)
        }
    }

    /// The socket's send queue went over its high-water mark (`false`) or back under its low one (`true`).
    package mutating func writabilityChanged(writable: Bool) { sendQueue = writable ? .accepting : .full }

    /// A `read` asked while reads are held back; returns whether it may go through now.
    package mutating func askRead() -> Bool {
        guard holdsReads else { return true }
        heldRead = .held
        return false
    }

    /// Whether a held `read` may go through now (and forgets it).
    package mutating func releaseHeldRead() -> Bool {
        guard heldRead == .held, !holdsReads else { return false }
        heldRead = .none
        return true
    }

    // MARK: Closing

    /// Stops answering: the connection closes once everything written has been sent. Returns whether this began the
    /// close (the caller then flushes and lingers); `false` when it was already closing.
    package mutating func beginClosing() -> Bool {
        guard !isClosing else { return false }
        phase = .closing
        queue.removeAll()
        return true
    }

    /// Everything written was sent and the sending side shut down at `now`: linger.
    package mutating func startLingering(now: NIODeadline) {
        phase = .lingering(until: now + limits.lingerTime, discarded: 0)
    }

    /// The channel closed: the client has gone, so work for an answer it still waits for is cancelled (wasted, and its
    /// answer has nowhere to go).
    package mutating func closed() {
        awaited?.work?.cancel()
        phase = .closed
        queue.removeAll()
    }

    /// When the client has closed its side while work for its answer is awaited (a render), cancels the work and
    /// returns `true`: the connection is then to close. Like nginx's 499, a render costs seconds of a render thread
    /// and its memory, and a client that closed its side has most likely left (a browser navigating away).
    package mutating func abandonWork() -> Bool {
        guard inputClosed, let work = awaited?.work else { return false }
        work.cancel()
        return true
    }

    // MARK: Time

    /// What is due at `now`, with `buffered` response bytes queued in the channel. Progress is the queue shrinking
    /// (or empty); more queued by the server is not the client reading.
    package mutating func expiry(now: NIODeadline, buffered: Int) -> Expiry {
        if buffered == 0 || buffered < lastBuffered { lastSendProgress = now }
        lastBuffered = buffered
        if buffered > 0 && now - lastSendProgress >= limits.sendTimeout {
            return .reset
        }
        switch phase {
        case .waiting(let deadline, let afterAnswer) where now >= deadline:
            if buffered > 0 {
                // Still sending an answer the client keeps reading: the send watch decides, not the idle deadline.
                phase = .waiting(until: now + limits.idleTimeout, afterAnswer: afterAnswer)
                return .none
            }
            return .close
        case .reading(let deadline) where now >= deadline:
            return buffered > 0 ? extendRequest(now: now) : .requestTimeout
        case .receiving(_, _, let deadline?) where now >= deadline:
            return buffered > 0 ? extendRequest(now: now) : .requestTimeout
        case .lingering(let deadline, _) where now >= deadline:
            return .close
        default:
            return .none
        }
    }

    private mutating func extendRequest(now: NIODeadline) -> Expiry {
        switch phase {
        case .reading: phase = .reading(until: now + limits.idleTimeout)
        case .receiving(let head, let bodyBytes, _): phase = .receiving(head, bodyBytes: bodyBytes, until: now + limits.idleTimeout)
        default: break
        }
        return .none
    }
}
