import NIOCore
import Testing

@testable import HTTPCore

/// ``ConnectionState``'s queue: pipelined requests answered in order behind an awaited answer, reads held back while
/// answers cannot be produced (back-pressure), shutdown and the client's half-close, and output held by `TCP_CORK`.
extension ConnectionStateTests {
    /// Answers everything queued as the handler does: each request completes, is answered at `now`, in order; a
    /// request whose target is in `awaiting` waits for its answer instead. Returns the targets answered.
    static func answerQueued(_ state: inout ConnectionState, now: NIODeadline, awaiting: Set<String> = []) -> [String] {
        var answered: [String] = []
        while let inbound = state.nextQueued() {
            guard case .simple(let request) = inbound else { preconditionFailure("only plain requests are queued here") }
            state.requestComplete()
            if awaiting.contains(request.uri) {
                state.awaitResponse(for: Exchange(request))
            } else {
                state.answered(now: now)
                answered.append(request.uri)
            }
        }
        return answered
    }

    @Test func pipelinedRequestsWaitForTheAwaitedAnswerAndAreAnsweredInOrder() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.bytesArrived(300, now: clock.move(to: 10))
        state.requestComplete()
        state.awaitResponse(for: Exchange(Self.request("/tile/1")))
        #expect(state.mustQueue && state.holdsReads && !state.mayProceed)
        #expect(state.askRead() == false)
        for target in ["/healthz", "/tile/2", "/tile/3"] {
            state.enqueue(.simple(Self.request(target)))
        }
        // Queued requests are not timed: the answer awaited is the server's to give.
        #expect(state.deadline == nil && state.expiry(now: clock.move(to: 10_000), buffered: 0) == Expiry.none)
        #expect(state.nextQueued() == nil)
        #expect(state.releaseHeldRead() == false)

        #expect(state.responseArrived()?.target == "/tile/1")
        state.answered(now: clock.move(to: 10_010))
        #expect(!state.isIdle && state.deadline == nil)
        #expect(Self.answerQueued(&state, now: clock.now, awaiting: ["/tile/2"]) == ["/healthz"])
        #expect(state.awaited?.target == "/tile/2" && state.queue.count == 1)
        #expect(state.releaseHeldRead() == false)
        #expect(state.responseArrived()?.target == "/tile/2")
        state.answered(now: clock.move(to: 10_020))
        #expect(Self.answerQueued(&state, now: clock.move(to: 10_030)) == ["/tile/3"])

        // All answered: the held read goes through (once), and the idle timeout runs from the last answer.
        #expect(state.isIdle && !state.holdsReads)
        #expect(state.releaseHeldRead() == true)
        #expect(state.releaseHeldRead() == false)
        #expect(state.expiry(now: clock.move(to: 13_029), buffered: 0) == Expiry.none)
        #expect(state.expiry(now: clock.move(to: 13_030), buffered: 0) == .close)
    }

    /// A malformed request after good ones is answered after them (400, then close), not ahead.
    @Test func aDecodingErrorWaitsForTheAnswersQueuedBeforeIt() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.bytesArrived(300, now: clock.move(to: 10))
        state.requestComplete()
        state.awaitResponse(for: Exchange(Self.request("/tile/1")))
        state.enqueue(.simple(Self.request("/healthz")))
        let error = RequestError.badRequest("malformed request")
        #expect(state.decodingFailed(error) == true)
        #expect(state.takeDeferredError()?.message == nil)
        #expect(state.responseArrived()?.target == "/tile/1")
        state.answered(now: clock.move(to: 20))
        #expect(Self.answerQueued(&state, now: clock.now) == ["/healthz"])
        #expect(state.takeDeferredError()?.status == error.status)
        #expect(state.takeDeferredError()?.message == nil)

        // With nothing before it, the error is answered at once.
        var fresh = ConnectionState(limits: Self.limits, now: clock.now)
        _ = fresh.bytesArrived(9, now: clock.now)
        #expect(fresh.decodingFailed(error) == false)
        #expect(fresh.deferredError == nil)
    }

    /// While the socket's send queue is over its high-water mark, no answer is produced and reads are held back, so
    /// a client that reads none of its answers cannot pile them up in memory; they resume, in order, once it drains.
    @Test func aFullSendQueueHoldsReadsAndAnswersUntilItDrains() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.bytesArrived(300, now: clock.move(to: 10))
        state.requestComplete()
        state.answered(now: clock.move(to: 20))
        #expect(state.askRead() == true)
        state.writabilityChanged(writable: false)
        #expect(state.mustQueue && state.holdsReads && !state.mayProceed)
        #expect(state.askRead() == false)
        state.enqueue(.simple(Self.request("/large/2")))
        state.enqueue(.simple(Self.request("/large/3")))
        #expect(state.nextQueued() == nil)

        state.writabilityChanged(writable: true)
        // Queued requests still hold reads back until they are answered.
        #expect(state.mayProceed && state.holdsReads)
        #expect(state.releaseHeldRead() == false)
        var answered: [String] = []
        while let inbound = state.nextQueued() {
            guard case .simple(let request) = inbound else { break }
            state.requestComplete()
            state.answered(now: clock.move(to: clock.milliseconds + 5))
            answered.append(request.uri)
            // The answer filled the send queue again: the next waits.
            state.writabilityChanged(writable: false)
            #expect(state.nextQueued() == nil)
            state.writabilityChanged(writable: true)
        }
        #expect(answered == ["/large/2", "/large/3"])
        #expect(!state.holdsReads)
        #expect(state.releaseHeldRead() == true)
        #expect(state.releaseHeldRead() == false)
    }

    /// An upload's body waits for the disk: reads are held back until it is written.
    @Test func anUploadBehindTheDiskHoldsReads() {
        var state = ConnectionState(limits: Self.limits, now: ManualClock.start)
        state.holdBody(true)
        #expect(state.holdsReads && !state.mustQueue)
        #expect(state.askRead() == false)
        #expect(state.releaseHeldRead() == false)
        state.holdBody(false)
        #expect(state.releaseHeldRead() == true)
        #expect(state.releaseHeldRead() == false)
    }

    /// Shutdown and the client's half-close both end the connection once everything received is answered; shutdown
    /// makes the last answer say `Connection: close`.
    @Test func shutdownAndHalfCloseEndTheConnectionOnceIdle() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.bytesArrived(300, now: clock.move(to: 10))
        state.requestComplete()
        let first = Exchange(Self.request("/tile/1"))
        state.awaitResponse(for: first)
        state.enqueue(.simple(Self.request("/tile/2")))
        state.quiesce()
        #expect(!state.shouldCloseWhenIdle && !state.mustClose(first))
        #expect(state.responseArrived()?.target == "/tile/1")
        state.answered(now: clock.now)
        #expect(state.nextQueued() != nil)
        #expect(state.queue.isEmpty)
        state.requestComplete()
        #expect(state.mustClose(Exchange(Self.request("/tile/2"))))
        #expect(state.mustClose(Exchange(Self.request("/tile/3", keepAlive: false))))

        var halfClosed = ConnectionState(limits: Self.limits, now: clock.now)
        _ = halfClosed.bytesArrived(300, now: clock.now)
        halfClosed.requestComplete()
        halfClosed.awaitResponse(for: first)
        halfClosed.closeInput()
        #expect(halfClosed.inputClosed && !halfClosed.shouldCloseWhenIdle)
        _ = halfClosed.responseArrived()
        halfClosed.answered(now: clock.now)
        #expect(halfClosed.shouldCloseWhenIdle && !halfClosed.mustClose(first))
    }

    /// Closing drops what was queued; an answer that arrives after the channel closed has nowhere to go.
    @Test func closingDropsTheQueueAndLateAnswers() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        _ = state.bytesArrived(300, now: clock.move(to: 10))
        state.requestComplete()
        state.awaitResponse(for: Exchange(Self.request("/tile/1")))
        state.enqueue(.simple(Self.request("/tile/2")))
        state.closed()
        #expect(state.queue.isEmpty && state.isClosing && state.holdsReads)
        #expect(state.responseArrived()?.target == nil)
        #expect(state.nextQueued() == nil)
        #expect(state.beginClosing() == false)
    }

    /// A file body sent with `sendfile` corks the output once; the next flush uncorks it.
    @Test func corkedOutputIsUncorkedByTheNextFlush() {
        var clock = ManualClock()
        var state = ConnectionState(limits: Self.limits, now: clock.now)
        #expect(state.flushed() == (false, false))
        _ = state.bytesArrived(300, now: clock.move(to: 10))
        state.requestComplete()
        #expect(state.cork() == true)
        #expect(state.cork() == false)
        state.answered(now: clock.now)
        #expect(state.output == .corked)
        #expect(state.flushed() == (true, true))
        _ = state.bytesArrived(300, now: clock.move(to: 20))
        state.requestComplete()
        state.answered(now: clock.now)
        #expect(state.flushed() == (true, false))
        #expect(state.flushed() == (false, false))
    }
}
