import NIOCore
import NIOPosix
import Synchronization

/// A real HTTP server on 127.0.0.1 that answers each connection's request by the next step of a script: a status with a
/// body, a body cut short, a reset connection, silence, or a late answer. Every answer but ``Step/kept(status:body:headers:)``
/// closes its connection, so each attempt of a client is one connection and one step. It records the request lines and
/// the most connections open at once.
final class ScriptedServer: Sendable {
    enum Step: Sendable {
        /// `status` with `body` and its `Content-Length`, plus `headers` (`Retry-After: 0`).
        case answer(status: Int, body: String, headers: [String] = [])
        /// Announces `announced` bytes, sends `body`, then closes.
        case truncated(announced: Int, body: String)
        /// Closes the connection with a TCP reset as soon as the request has arrived.
        case reset
        /// Says nothing and keeps the connection open.
        case silent
        /// Waits `delay`, then answers 200 with `body` (to hold connections open at once).
        case slow(delay: TimeAmount, body: String)
        /// As ``answer(status:body:headers:)``, but keeps the connection open for its next request, the next step.
        case kept(status: Int, body: String, headers: [String] = [])
        /// Answers 200 with `body`, one byte every `every` after the head.
        case dribble(body: String, every: TimeAmount)
        /// Closes the connection (FIN, no answer) as soon as the request has arrived: a kept-alive connection the
        /// server gave up just as the client reused it.
        case close
    }

    /// The script and what was seen, shared by the connections.
    final class Ledger: Sendable {
        private struct State {
            var script: [Step]
            var requests: [String] = []
            var open = 0
            var mostOpen = 0
            var waiting = 0
            var mostWaiting = 0
        }
        private let state: Mutex<State>

        init(script: [Step]) {
            state = Mutex(State(script: script))
        }

        /// The next step (the last one again once the script runs out), counting the connection as open when it is
        /// a new one.
        func next(newConnection: Bool = true) -> Step {
            state.withLock { state in
                if newConnection {
                    state.open += 1
                    state.mostOpen = max(state.mostOpen, state.open)
                }
                return state.script.count > 1 ? state.script.removeFirst() : state.script[0]
            }
        }

        func record(_ line: String) { state.withLock { $0.requests.append(line) } }
        func closed() { state.withLock { $0.open -= 1 } }
        /// A ``Step/slow(delay:body:)`` request began waiting for its answer, or stopped.
        func waits() {
            state.withLock { state in
                state.waiting += 1
                state.mostWaiting = max(state.mostWaiting, state.waiting)
            }
        }
        func answered() { state.withLock { $0.waiting -= 1 } }
        var mostWaiting: Int { state.withLock { $0.mostWaiting } }
        var requests: [String] { state.withLock { $0.requests } }
        var mostOpen: Int { state.withLock { $0.mostOpen } }
    }

    private let ledger: Ledger
    private let channel: any Channel
    /// The port it listens on.
    let port: Int

    /// Starts listening; `script` is played in order, its last step repeated once it runs out.
    init(script: [Step]) async throws {
        precondition(!script.isEmpty, "a script has at least one step")
        let ledger = Ledger(script: script)
        self.ledger = ledger
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ScriptHandler(ledger: ledger)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress!.port!
    }

    /// The origin to point clients at.
    var origin: String { "http://127.0.0.1:\(port)" }
    /// The request lines received (`GET /a HTTP/1.1`), in order.
    var requests: [String] { ledger.requests }
    /// The most connections that were open at once (a connection the client is done with counts until the server has
    /// seen it close, which can lag behind the client's next connection).
    var mostOpen: Int { ledger.mostOpen }
    /// The most ``Step/slow(delay:body:)`` requests waiting for their answers at once: requests in flight, counted
    /// from their arrival to the start of their answer (before the client can have it).
    var mostWaiting: Int { ledger.mostWaiting }

    /// Stops listening.
    func close() async throws {
        try await channel.close()
    }

    /// Reads one request head, then plays the connection's step.
    private final class ScriptHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        private let ledger: Ledger
        private var received = ""
        private var step: Step?

        init(ledger: Ledger) {
            self.ledger = ledger
        }

        func channelActive(context: ChannelHandlerContext) {
            step = ledger.next()
        }

        func channelInactive(context: ChannelHandlerContext) {
            ledger.closed()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            received += buffer.readString(length: buffer.readableBytes) ?? ""
            guard received.contains("\r\n\r\n"), let step else { return }
            self.step = nil
            ledger.record(String(received.prefix { !$0.isNewline }))
            play(step, context: context)
        }

        private func play(_ step: Step, context: ChannelHandlerContext) {
            switch step {
            case .answer(let status, let body, let headers):
                let extra = headers.map { "\($0)\r\n" }.joined()
                send("HTTP/1.1 \(status) Scripted\r\nContent-Length: \(body.utf8.count)\r\n\(extra)Connection: close\r\n\r\n\(body)", context)
            case .kept(let status, let body, let headers):
                let extra = headers.map { "\($0)\r\n" }.joined()
                let text = "HTTP/1.1 \(status) Scripted\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)"
                received = ""
                self.step = ledger.next(newConnection: false)
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
            case .close:
                context.close(promise: nil)
            case .dribble(let body, let every):
                context.writeAndFlush(
                    wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n")),
                    promise: nil)
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                for (index, byte) in body.utf8.enumerated() {
                    context.eventLoop.scheduleTask(in: every * Int64(index + 1)) {
                        let context = bound.value
                        context.writeAndFlush(NIOAny(ByteBuffer(bytes: [byte])), promise: nil)
                        if index == body.utf8.count - 1 { context.close(promise: nil) }
                    }
                }
            case .truncated(let announced, let body):
                send("HTTP/1.1 200 OK\r\nContent-Length: \(announced)\r\nConnection: close\r\n\r\n\(body)", context)
            case .reset:
                // SO_LINGER with a zero timeout: close() sends RST instead of FIN.
                let channel = context.channel
                let lingering = (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
                (lingering ?? channel.eventLoop.makeSucceededVoidFuture()).whenComplete { _ in channel.close(promise: nil) }
            case .silent:
                break
            case .slow(let delay, let body):
                ledger.waits()
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: delay) {
                    bound.value.0.ledger.answered()
                    bound.value.0.play(.answer(status: 200, body: body), context: bound.value.1)
                }
            }
        }

        private func send(_ text: String, _ context: ChannelHandlerContext) {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
