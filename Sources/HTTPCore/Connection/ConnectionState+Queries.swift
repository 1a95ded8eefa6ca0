import NIOCore
import NIOHTTP1

/// What a ``ConnectionState`` says without changing: whether it queues, holds reads, closes, and when its timer
/// should look next.
extension ConnectionState {
    /// Whether the connection is closing (or lingering, or closed): nothing more is answered.
    package var isClosing: Bool {
        switch phase {
        case .closing, .lingering, .closed: true
        default: false
        }
    }

    /// Whether the connection is in its lingering close (reading and dropping what the client still sends).
    package var isLingering: Bool {
        if case .lingering = phase { return true }
        return false
    }

    /// The exchange whose response is awaited, if any.
    package var awaited: Exchange? {
        if case .awaiting(let exchange) = phase { return exchange }
        return nil
    }

    /// Whether what arrives now must wait: a response is awaited, earlier arrivals are still queued, or the send
    /// queue is full (no more answers are produced until the client takes some).
    package var mustQueue: Bool {
        if case .awaiting = phase { return true }
        return !queue.isEmpty || sendQueue == .full
    }

    /// Whether no request is being received or answered: the connection waits for one.
    package var isBetweenRequests: Bool {
        switch phase {
        case .waiting, .reading, .answering: true
        default: false
        }
    }

    /// Whether everything received has been answered (no request being received, awaited or queued).
    package var isIdle: Bool { isBetweenRequests && queue.isEmpty }

    /// Whether reads from the socket are held back (a response awaited, requests queued, the send queue full, or
    /// closing).
    package var holdsReads: Bool { mustQueue || isClosing || bodyHeld }

    /// Whether the connection should close now: idle, and shutdown or the client's half-close asked for it.
    package var shouldCloseWhenIdle: Bool { isIdle && !ending.isEmpty }

    /// The head of the request being received (its end or body not yet arrived), if any.
    package var receivingHead: HTTPRequestHead? {
        if case .receiving(let head, _, _) = phase { return head }
        return nil
    }

    /// Whether the response to `exchange`, written now, must close the connection: the client asked, or shutdown
    /// is under way and nothing else is queued.
    package func mustClose(_ exchange: Exchange) -> Bool {
        !exchange.keepAlive || (ending.contains(.quiescing) && queue.isEmpty)
    }

    /// Whether the client has closed its sending side.
    package var inputClosed: Bool { ending.contains(.inputClosed) }

    /// Whether the connection may handle what arrives now: no response awaited, the send queue not full, and not
    /// closing.
    package var mayProceed: Bool {
        guard sendQueue == .accepting else { return false }
        switch phase {
        case .waiting, .reading, .receiving, .answering: return true
        case .awaiting, .closing, .lingering, .closed: return false
        }
    }

    // MARK: Time

    /// The current phase's deadline, if it has one.
    package var deadline: NIODeadline? {
        switch phase {
        case .waiting(let deadline, _), .reading(let deadline), .receiving(_, _, let deadline?), .lingering(let deadline, _): deadline
        default: nil
        }
    }

    /// When the timer should next look: the phase's deadline, or a tick later for the send watch.
    package func nextCheck(now: NIODeadline) -> NIODeadline {
        let tick = now + limits.tick
        return deadline.map { min($0, tick) } ?? tick
    }
}
