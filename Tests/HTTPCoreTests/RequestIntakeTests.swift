import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import HTTPCore

/// What a connection does with each request part, decided without a socket: bodies nobody wants dropped up to the
/// limit, an upload's body streamed into its sink (refused mid-body, or awaited at its end with its route), an upload
/// refused at its head closing the connection.
@Suite struct RequestIntakeTests {
    static let uploads = RouteLabel(rawValue: 9, name: "uploads")

    /// A sink that keeps up to `limit` bytes, then refuses with a 413.
    final class Sink: RequestBodySink {
        let limit: Int
        var received = 0
        var isHoldingReads = false
        var aborted: String?
        init(limit: Int) { self.limit = limit }
        func receive(_ body: ByteBuffer) -> RequestError? {
            received += body.readableBytes
            return received > limit ? RequestAdmission.bodyTooLarge(limit: limit) : nil
        }
        func finish(_ deliver: @escaping (Response) -> Void) { deliver(.error(.notFound("kept"))) }
        func abort(_ message: String) { aborted = message }
    }

    /// Admits every PUT to `/images/…` into `sink` (refuses the rest), answers everything else with a 404.
    final class Uploads: Responder {
        let sink: Sink
        init(sink: Sink) { self.sink = sink }
        func respond(to request: SimpleRequest, exchange: inout Exchange) -> Response { .error(.notFound("none")) }
        func respond(to head: HTTPRequestHead, exchange: inout Exchange, channel: any Channel) -> Response { .error(.notFound("none")) }
        func allowedMethods(uri: String) -> [HTTPMethod] { [.GET, .HEAD, .PUT] }
        func label(_ head: HTTPRequestHead) -> RouteLabel { RequestIntakeTests.uploads }
        func admitBody(
            _ head: HTTPRequestHead, exchange: inout Exchange, eventLoop: any EventLoop, notify: @escaping (RequestError?) -> Void
        ) -> BodyAdmission {
            exchange.route = RequestIntakeTests.uploads
            return head.uri.hasPrefix("/images/") ? .admitted(sink) : .refused(.error(RequestError(status: .forbidden, message: "no")))
        }
    }

    let channel = EmbeddedChannel()
    let sink = Sink(limit: 10)
    var intake: RequestIntake
    var state = ConnectionState(
        limits: ConnectionLimits(headTimeout: .seconds(5), idleTimeout: .seconds(5), sendTimeout: .seconds(5)), now: .now())

    init() {
        intake = RequestIntake(
            admission: RequestAdmission(maxBodyBytes: 8, maxUploadBytes: 1 << 20), responder: Uploads(sink: sink), notify: { _ in })
    }

    func head(_ method: HTTPMethod, _ uri: String, _ fields: [(String, String)]) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: HTTPHeaders([("Host", "t")] + fields))
    }

    func bytes(_ count: Int) -> ByteBuffer { ByteBuffer(repeating: 1, count: count) }

    @Test mutating func aBodyNobodyWantsIsDroppedUpToTheLimitThenRefused() {
        let get = head(.GET, "/a", [("Content-Length", "8")])
        guard case .none = intake.take(.part(.head(get)), state: &state, channel: channel) else {
            Issue.record("a GET with a small body is read")
            return
        }
        guard case .none = intake.take(.part(.body(bytes(8))), state: &state, channel: channel) else {
            Issue.record("8 bytes are within the limit")
            return
        }
        guard case .refuse(let error) = intake.take(.part(.body(bytes(1))), state: &state, channel: channel) else {
            Issue.record("the ninth byte is over the limit")
            return
        }
        #expect(error.status == .contentTooLarge)
        #expect(state.receivingHead == nil, "the request is over: its end is not awaited")
    }

    @Test mutating func anUploadStreamsIntoItsSinkAndIsAwaitedAtItsEndUnderItsRoute() {
        let put = head(.PUT, "/images/a", [("Content-Length", "6"), ("Expect", "100-continue")])
        guard case .sendContinue = intake.take(.part(.head(put)), state: &state, channel: channel) else {
            Issue.record("an admitted upload that expects it is sent 100 Continue")
            return
        }
        guard case .none = intake.take(.part(.body(bytes(6))), state: &state, channel: channel) else {
            Issue.record("the sink keeps 6 bytes")
            return
        }
        guard case .awaitUpload(let exchange, let awaited) = intake.take(.part(.end(nil)), state: &state, channel: channel) else {
            Issue.record("the upload's answer is awaited from its sink")
            return
        }
        #expect(exchange.route == Self.uploads && awaited === sink && sink.received == 6)
        let abortedAfterItsEnd = intake.abortUpload(clientLeft: true, error: nil)
        #expect(intake.upload == nil && !abortedAfterItsEnd)
    }

    @Test mutating func anUploadRefusedMidBodyIsAnsweredUnderItsRouteAndTheRestDropped() {
        let put = head(.PUT, "/images/a", [("Content-Length", "20")])
        _ = intake.take(.part(.head(put)), state: &state, channel: channel)
        guard case .refuseUpload(let error) = intake.take(.part(.body(bytes(11))), state: &state, channel: channel) else {
            Issue.record("the sink refuses its eleventh byte")
            return
        }
        #expect(error.status == .contentTooLarge)
        let refused = intake.refuseUpload(state: &state)
        let again = intake.refuseUpload(state: &state)
        #expect(refused?.route == Self.uploads && again == nil, "refused once")
    }

    @Test mutating func anUploadRefusedAtItsHeadClosesTheConnection() {
        let put = head(.PUT, "/elsewhere", [("Content-Length", "5")])
        guard case .answer(_, let exchange, let closing) = intake.take(.part(.head(put)), state: &state, channel: channel) else {
            Issue.record("a refused upload is answered at once")
            return
        }
        #expect(closing && exchange.route == Self.uploads && intake.upload == nil)
    }

    @Test mutating func anUploadTheClientLeftIsAbortedWithItsReason() {
        _ = intake.take(.part(.head(head(.PUT, "/images/a", [("Content-Length", "5")]))), state: &state, channel: channel)
        _ = intake.take(.part(.body(bytes(3))), state: &state, channel: channel)
        let aborted = intake.abortUpload(clientLeft: true, error: nil)
        #expect(aborted)
        #expect(sink.aborted == "the client went away after 3 bytes; nothing was stored")
    }
}
