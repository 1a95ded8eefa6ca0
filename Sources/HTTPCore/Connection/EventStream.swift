import NIOCore

/// One Server-Sent Events answer being written (``Response/events(_:)``): the source's current event now and after
/// each change, at most ``minimumGap`` apart (changes in between are merged into the next event), until its last
/// event; then the connection closes. Each event is written and flushed to the connection's channel as it is made.
/// Lives on the connection's event loop.
package final class EventStream {
    /// The least time between two events: at most 10 a second.
    package static let minimumGap = TimeAmount.milliseconds(100)

    package let source: any EventSource
    private let context: ChannelHandlerContext
    private var loop: any EventLoop { context.eventLoop }
    /// Called after the source's last event, with the body bytes written (the connection then closes).
    private let finished: (_ bytes: Int) -> Void
    private var sent = 0
    private var watcher: UInt64?
    private var lastSent: NIODeadline?
    private var scheduled: Scheduled<Void>?
    private var ended = false

    /// A stream of `source`'s events to `context`'s channel; `finished` is called after the last.
    package init(source: any EventSource, context: ChannelHandlerContext, finished: @escaping (_ bytes: Int) -> Void) {
        self.source = source
        self.context = context
        self.finished = finished
    }

    /// Sends the current event and follows the source.
    package func start() {
        let bound = NIOLoopBound(self, eventLoop: loop)
        let loop = self.loop
        watcher = source.watch { loop.execute { bound.value.changed() } }
        emit()
    }

    /// Stops following the source (the connection closed).
    package func stop() {
        ended = true
        scheduled?.cancel()
        scheduled = nil
        if let watcher { source.unwatch(watcher) }
        watcher = nil
    }

    private func changed() {
        guard !ended, scheduled == nil else { return }
        let now = NIODeadline.now()
        if let lastSent, now - lastSent < Self.minimumGap {
            let bound = NIOLoopBound(self, eventLoop: loop)
            scheduled = loop.scheduleTask(deadline: lastSent + Self.minimumGap) { bound.value.fire() }
        } else {
            emit()
        }
    }

    private func fire() {
        scheduled = nil
        emit()
    }

    private func emit() {
        guard !ended else { return }
        let (event, last) = source.currentEvent()
        lastSent = .now()
        if last { stop() }
        sent += event.readableBytes
        context.writeAndFlush(NIOAny(event), promise: nil)
        if last { finished(sent) }
    }
}
