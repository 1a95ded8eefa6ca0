import Foundation
import NIOCore
import NIOPosix

/// One client connection of a ``FaultProxy``: each request it writes is met with the fault of the moment — passed to
/// the store over a connection of its own (made at the first request passed, on the same event loop) with the answer
/// passed back, or answered, cut, reset or left unanswered here.
final class FaultProxyConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let board: FaultProxy.Board
    private let front: any Channel
    /// The connection to the store, once made.
    private var back: (any Channel)?
    private var connecting = false
    /// Requests waiting for the connection to the store.
    private var pending: [ByteBuffer] = []
    /// Set by a ``FaultProxy/Fault/silent`` request: nothing more is read or answered.
    private var silenced = false
    /// How the answer under way is cut, and its bytes so far.
    private var cut: (keeping: Int, reset: Bool)?
    private var answer: [UInt8] = []

    init(board: FaultProxy.Board, front: any Channel) {
        self.board = board
        self.front = front
    }

    func channelActive(context: ChannelHandlerContext) {
        board.opened(front)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        board.closed(front)
        back?.close(promise: nil)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let piece = unwrapInboundIn(data)
        let fault = board.fault(for: piece)
        guard !silenced else { return }
        switch fault {
        case .none, .silentFrom:
            cut = nil
            forward(piece, on: context.eventLoop)
        case .cut(let keeping, let reset):
            cut = (keeping, reset)
            answer = []
            forward(piece, on: context.eventLoop)
        case .down, .reset:
            FaultProxy.reset(front)
        case .silent:
            silenced = true
        case .answer(let status, let code, let headers):
            let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>\(code)</Code><Message>injected</Message></Error>"
            let lines = ["HTTP/1.1 \(status) Fault", "Content-Type: application/xml", "Content-Length: \(body.utf8.count)"] + headers
            let front = self.front
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: (lines + ["Connection: close", "", body]).joined(separator: "\r\n"))))
                .whenComplete { _ in front.close(promise: nil) }
        }
    }

    /// Passes `piece` to the store, connecting first if need be.
    private func forward(_ piece: ByteBuffer, on eventLoop: any EventLoop) {
        if let back {
            back.writeAndFlush(piece, promise: nil)
            return
        }
        pending.append(piece)
        guard !connecting else { return }
        connecting = true
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Upstream(connection: bound)) }
            }
            .connect(host: board.upstreamHost, port: board.upstreamPort)
            .whenComplete { result in
                let connection = bound.value
                switch result {
                case .success(let channel): connection.connected(channel)
                case .failure: FaultProxy.reset(connection.front)
                }
            }
    }

    private func connected(_ channel: any Channel) {
        guard front.isActive else { return channel.close(promise: nil) }
        back = channel
        for piece in pending { channel.write(piece, promise: nil) }
        channel.flush()
        pending = []
    }

    /// Bytes of the store's answer: passed on, or, while cutting, held until the head and the bytes kept are in.
    private func answered(_ bytes: ByteBuffer) {
        guard let cut else { return front.writeAndFlush(bytes, promise: nil) }
        answer += bytes.readableBytesView
        guard let end = answer.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound else { return }
        let head = String(decoding: answer[..<end], as: UTF8.self).lowercased()
        let length =
            head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        let kept = min(cut.keeping, max(length - 1, 0))
        guard answer.count >= end + kept else { return }
        self.cut = nil
        let front = self.front
        front.writeAndFlush(ByteBuffer(bytes: answer[..<(end + kept)])).whenComplete { _ in
            if cut.reset { FaultProxy.reset(front) } else { front.close(promise: nil) }
        }
        back?.close(promise: nil)
    }

    /// The connection to the store: its answers go to the client's connection, and its end ends that one.
    private final class Upstream: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private let connection: NIOLoopBound<FaultProxyConnection>

        init(connection: NIOLoopBound<FaultProxyConnection>) {
            self.connection = connection
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            connection.value.answered(unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            connection.value.front.close(promise: nil)
            context.fireChannelInactive()
        }
    }
}
