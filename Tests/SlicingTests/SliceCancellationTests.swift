import Slicing
import Testing

@Suite struct SliceCancellationTests {
    @Test func aPartIsCancelledWithItsJobButNotTheOtherWayRound() {
        let job = SliceCancellation()
        let part = SliceCancellation(parent: job)
        #expect(!part.isCancelled)
        part.cancel()
        #expect(part.isCancelled && !job.isCancelled, "cancelling a part leaves the job running")
        let other = SliceCancellation(parent: job)
        job.cancel()
        #expect(other.isCancelled, "cancelling the job cancels every part")
    }
}
