import NIOCore
import NIOHTTP1
import Testing

@testable import HTTPCore

/// ``ConnectionState``'s deadlines driven directly with a ``ManualClock``: what it decides just before and at the
/// millisecond each falls, with no socket and no waiting. (Pipelining, back-pressure and closing are in
/// `ConnectionStateTests+Queue.swift`; what only the kernel shows — a reset, `sendfile`, cork — stays with the socket
/// tests.)
@Suite struct ConnectionStateTests {
    typealias Expiry = ConnectionState.Expiry

    /// Head 1 s, idle 3 s, send 2 s, linger 2 s or 1,000 bytes: the timer ticks every 500 ms.
    static let limits = ConnectionLimits(
        headTimeout: .milliseconds(1000), idleTimeout: .milliseconds(3000), sendTimeout: .milliseconds(2000), lingerTime: .milliseconds(2000),
        lingerBytes: 1000)

    /// A plain request as ``SimpleRequestDecoder`` reads it.
    static func request(_ uri: String, keepAlive: Bool = true) -> SimpleRequest {
        SimpleRequest(uri: uri, isHead: false, isHTTP10: false, keepAlive: keepAlive, ifNoneMatch: nil)
    }

    /// A `GET` head as NIO's decoder reads it, with `headers`.
    static func head(_ uri: String, _ headers: HTTPHeaders = ["Host": "t"]) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: headers)
    }

    @Test func aNewConnectionThatSendsNothingIsClosedAtTheHeadTimeout() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        #expect(state.deadline == ManualClock.at(1000))
        #expect(state.nextCheck(now: clock.now) == ManualClock.at(500))
        #expect(state.expiry(now: clock.move(to: 500), buffered: 0) == Expiry.none)
        #expect(state.nextCheck(now: clock.now) == ManualClock.at(1000))
        #expect(state.expiry(now: clock.move(to: 999), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 1000), buffered: 0) == .close)
    }

    /// Trickled header lines (one every 200 ms) would each reset a naive idle timer: the request's deadline runs from
    /// its first byte, whatever comes after.
    @Test func aRequestIsDueWithinTheHeadTimeoutOfItsFirstByte() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        #expect(state.bytesArrived(30, now: clock.move(to: 300)) == .decode)
        #expect(state.deadline == ManualClock.at(1300))
        for milliseconds in stride(from: 500, through: 1200, by: 200) {
            #expect(state.bytesArrived(12, now: clock.move(to: Int64(milliseconds))) == .decode)
            #expect(state.expiry(now: clock.now, buffered: 0) == Expiry.none)
        }
        #expect(state.deadline == ManualClock.at(1300))
        #expect(state.expiry(now: clock.move(to: 1299), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 1300), buffered: 0) == .requestTimeout)
    }

    /// A declared body never sent, or trickled, buys no more time than a head: due by the first byte's deadline.
    @Test func aDeclaredBodyIsDueWithTheHead() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.bytesArrived(60, now: clock.move(to: 100))
        state.receiveHead(Self.head("/healthz", ["Host": "t", "Content-Length": "100"]), bodyFollows: true, now: clock.move(to: 150))
        #expect(state.deadline == ManualClock.at(1100))
        for milliseconds in stride(from: 400, through: 1000, by: 300) {
            #expect(state.bytesArrived(1, now: clock.move(to: Int64(milliseconds))) == .decode)
            #expect(state.receiveBody(count: 1) == (milliseconds - 100) / 300)
        }
        #expect(state.deadline == ManualClock.at(1100))
        #expect(state.expiry(now: clock.move(to: 1099), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 1100), buffered: 0) == .requestTimeout)
    }

    /// A head without a body has no deadline of its own once read: the request is complete at its end.
    @Test func aHeadWithoutABodyIsNotTimedWhileItIsAnswered() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.bytesArrived(40, now: clock.move(to: 10))
        state.receiveHead(Self.head("/healthz"), bodyFollows: false, now: clock.now)
        #expect(state.deadline == nil)
        #expect(state.receiveEnd()?.uri == "/healthz")
        #expect(state.expiry(now: clock.move(to: 5000), buffered: 0) == Expiry.none)
        #expect(state.nextCheck(now: clock.now) == ManualClock.at(5500))
    }

    /// An upload's body may take as long as it keeps coming: the head timeout runs again from each arrival.
    @Test func anUploadIsDueWithinTheHeadTimeoutOfEachArrival() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.bytesArrived(200, now: clock.move(to: 100))
        state.receiveHead(Self.head("/api/images/a"), bodyFollows: true, now: clock.now)
        for milliseconds in stride(from: 900, through: 4500, by: 900) {
            state.receiveUploadBody(count: 65536, now: clock.move(to: Int64(milliseconds)))
            #expect(state.expiry(now: clock.now, buffered: 0) == Expiry.none)
        }
        #expect(state.deadline == ManualClock.at(5500))
        #expect(state.expiry(now: clock.move(to: 5499), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 5500), buffered: 0) == .requestTimeout)
    }

    /// Between requests the longer idle timeout applies, from the answer, not the head timeout.
    @Test func aKeptAliveConnectionIsClosedAtTheIdleTimeoutAfterItsAnswer() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.bytesArrived(40, now: clock.move(to: 100))
        state.requestComplete()
        #expect(state.deadline == nil)
        state.answered(now: clock.move(to: 150))
        #expect(state.isIdle && state.deadline == ManualClock.at(3150))
        #expect(state.expiry(now: clock.move(to: 1150), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 3149), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 3150), buffered: 0) == .close)
    }

    /// A client that takes none of its answer's bytes is reset at the send timeout after it last took some, whatever
    /// the phase; more bytes queued by the server are not the client reading.
    @Test func aClientThatTakesNoBytesIsResetAtTheSendTimeout() {
        var clock = ManualClock()
        let limits = ConnectionLimits(headTimeout: .milliseconds(500), idleTimeout: .seconds(1), sendTimeout: .seconds(2))
        var state = ConnectionState(limits: limits, now: clock.now)
        _ = state.bytesArrived(40, now: clock.move(to: 10))
        state.requestComplete()
        state.answered(now: clock.move(to: 20))
        #expect(state.expiry(now: clock.move(to: 250), buffered: 8000) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 500), buffered: 5000) == Expiry.none)
        // Past the idle deadline (1,020 ms) with bytes still queued: the send watch decides, not the idle deadline.
        #expect(state.expiry(now: clock.move(to: 1020), buffered: 5000) == Expiry.none)
        #expect(state.deadline == ManualClock.at(2020))
        #expect(state.expiry(now: clock.move(to: 1500), buffered: 9000) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 2499), buffered: 9000) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 2500), buffered: 9000) == .reset)
    }

    /// A slow reader of a long answer is not taken for idle: it may take nothing for longer than the idle timeout
    /// (not the send timeout), then read for longer than the send timeout; the idle deadline moves while bytes are
    /// queued, and once everything is sent the idle timeout runs from its last move.
    @Test func aSlowReaderOfALongAnswerIsNotTakenForIdle() {
        var clock = ManualClock()
        let limits = ConnectionLimits(headTimeout: .milliseconds(500), idleTimeout: .seconds(1), sendTimeout: .seconds(2))
        var state = ConnectionState(limits: limits, now: clock.now)
        _ = state.bytesArrived(40, now: clock.now)
        state.requestComplete()
        state.answered(now: clock.now)
        // MiB still queued at each tick: none taken for 1.2 s, then a MiB every 250 ms, the last two at once.
        let ticks: [(milliseconds: Int64, queued: Int)] = [
            (250, 8), (500, 8), (750, 8), (1000, 8), (1200, 8), (1250, 7), (1500, 6), (1750, 5), (2000, 4), (2250, 3), (2500, 2),
        ]
        for (milliseconds, queued) in ticks {
            #expect(state.expiry(now: clock.move(to: milliseconds), buffered: queued << 20) == Expiry.none, "\(milliseconds) ms")
        }
        // Moved at 1,000 and 2,000 ms.
        #expect(state.deadline == ManualClock.at(3000))
        #expect(state.expiry(now: clock.move(to: 2750), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 2999), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 3000), buffered: 0) == .close)
    }

    /// A request whose deadline passes while an earlier answer is still being sent is given the idle timeout again:
    /// the server, not the client, is behind.
    @Test func aRequestIsNotTimedOutWhileAnEarlierAnswerIsStillSent() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.bytesArrived(40, now: clock.move(to: 100))
        #expect(state.expiry(now: clock.move(to: 600), buffered: 4000) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 1100), buffered: 3000) == Expiry.none)
        #expect(state.deadline == ManualClock.at(4100))
        #expect(state.expiry(now: clock.move(to: 1600), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 4099), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 4100), buffered: 0) == .requestTimeout)
    }

    /// A lingering close reads and drops what the client still sends for the linger time, then closes.
    @Test func aLingeringCloseEndsAtTheLingerTime() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.bytesArrived(40, now: clock.move(to: 10))
        state.requestComplete()
        #expect(state.beginClosing() == true)
        #expect(state.deadline == nil && state.isClosing)
        state.startLingering(now: clock.move(to: 100))
        #expect(state.deadline == ManualClock.at(2100))
        #expect(state.bytesArrived(400, now: clock.move(to: 900)) == .discard)
        #expect(state.nextCheck(now: clock.move(to: 1800)) == ManualClock.at(2100))
        #expect(state.expiry(now: clock.move(to: 2099), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 2100), buffered: 0) == .close)
    }

    /// A lingering close drops at most ``ConnectionLimits/lingerBytes``, then closes at once.
    @Test func aLingeringCloseEndsPastTheLingerBytes() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.beginClosing()
        state.startLingering(now: clock.move(to: 100))
        #expect(state.bytesArrived(400, now: clock.move(to: 200)) == .discard)
        #expect(state.bytesArrived(600, now: clock.move(to: 300)) == .discard)
        #expect(state.bytesArrived(1, now: clock.move(to: 400)) == .close)
        state.closed()
        #expect(state.bytesArrived(1, now: clock.move(to: 500)) == .close)
        #expect(state.deadline == nil && state.isClosing)
    }
}
