import NIOCore
import NIOHTTP1

extension ConnectionState {
    /// What the connection is doing, and until when it may.
    package enum Phase {
        /// Waiting for a request's first byte until `deadline`; `afterAnswer` once a request has been answered (the
        /// idle timeout), else a new connection (the head timeout). Expiry closes without an answer.
        case waiting(until: NIODeadline, afterAnswer: Bool)
        /// Bytes of a request have arrived: the whole request is due by `deadline` (then 408).
        case reading(until: NIODeadline)
        /// NIO's decoder delivered this request head; the request is answered at its end. `bodyBytes`: body bytes
        /// received so far (read and dropped); a declared body is due by `deadline` (nil: none declared).
        case receiving(HTTPRequestHead, bodyBytes: Int, until: NIODeadline?)
        /// A complete request is being answered (no request deadline: the send watch applies).
        case answering
        /// A response is being produced elsewhere (``Response/later``) for this exchange: requests that arrive queue,
        /// and reads from the socket are held back.
        case awaiting(Exchange)
        /// The connection closes once what was written has been sent; nothing more is read or answered.
        case closing
        /// The sending side is shut down; what the client still sends is read and dropped until `deadline` or
        /// ``ConnectionLimits/lingerBytes`` (nginx's lingering close), then the socket closes.
        case lingering(until: NIODeadline, discarded: Int)
        /// The channel is gone.
        case closed
    }

    /// What reaches the connection: a request read by ``SimpleRequestDecoder`` or a part of one NIO's decoder read.
    package enum Inbound {
        case simple(SimpleRequest)
        case part(HTTPServerRequestPart)
    }

    /// What ends the connection once everything received is answered.
    package struct Ending: OptionSet {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Shutdown asked the connection to finish what it has received.
        package static let quiescing = Ending(rawValue: 1)
        /// The client closed its sending side.
        package static let inputClosed = Ending(rawValue: 2)
    }

    /// Whether answers may be produced: not while the socket's send queue is over its high-water mark (a client that
    /// does not read its answers stops being read, so its pipelined requests cannot pile up answers in memory).
    package enum SendQueue {
        case accepting
        case full
    }

    /// A `read` the channel asked for while reads were held back.
    package enum HeldRead {
        case none
        case held
    }

    /// Responses written since the last flush, and whether `TCP_CORK` holds them back.
    package enum Output {
        case flushed
        case unflushed
        case corked
    }

    /// What the connection's timer found.
    package enum Expiry: Equatable {
        /// Nothing due; check again at this time (nil: nothing to time but the send watch).
        case none
        /// Close without an answer (a connection that never sent a byte, or idled too long, or a linger ended).
        case close
        /// Answer 408, then close (a request not complete in time).
        case requestTimeout
        /// Drop the connection with a reset: the client took no response bytes for the send timeout.
        case reset
    }

    /// What the connection does with bytes that just arrived.
    package enum Arrival {
        /// Pass them on to the decoders.
        case decode
        /// Drop them (lingering).
        case discard
        /// Drop them and close (lingered over ``ConnectionLimits/lingerBytes``, or closed).
        case close
    }
}
