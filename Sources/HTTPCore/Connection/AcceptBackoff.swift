import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// On the listening socket: when `accept` fails for lack of a resource (descriptors, most often: `EMFILE`, `ENFILE`,
/// `ENOBUFS`, `ENOMEM`), stops accepting for ``pause`` and logs it (at most every 10 s) instead of retrying at once.
/// Connections already open keep being served; the kernel keeps queueing new ones in the backlog meanwhile.
///
/// NIO's own `AcceptBackoffHandler` does not help here: a read that failed on its first `accept` leaves the channel's
/// read pending, so the handler's withheld `read()` never happens and the loop retries the failing `accept` at once,
/// spinning a core. Turning `autoRead` off takes the socket out of the event loop's interest set until it is turned
/// back on.
package final class AcceptBackoff: ChannelInboundHandler, Sendable {
    package typealias InboundIn = any Channel
    package typealias InboundOut = any Channel

    /// How long accepting stops after a failure.
    package let pause: TimeAmount
    private let log: OccasionalLog

    /// Creates the handler; failures are noted in `log`.
    package init(pause: TimeAmount = .milliseconds(500), log: OccasionalLog) {
        self.pause = pause
        self.log = log
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode) else {
            return context.fireErrorCaught(error)
        }
        log.note(
            "Accepting a connection failed: \(error); pausing accepts for \(pause.nanoseconds / 1_000_000) ms, open connections are still served")
        let channel = context.channel
        try? channel.syncOptions?.setOption(.autoRead, value: false)
        context.eventLoop.assumeIsolated().scheduleTask(in: pause) {
            try? channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }
}
