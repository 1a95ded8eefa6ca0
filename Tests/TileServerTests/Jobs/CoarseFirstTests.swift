import Synchronization
import Testing

@testable import SliceJobs
@testable import TileServer

/// A large JPEG's two builds join its provisional pyramid coarse first, the full build's folder in front of it,
/// whichever finishes its part first.
@Suite struct CoarseFirstTests {
    /// Records the folders registered, in order.
    final class Registered: Sendable {
        let paths = Mutex<[String]>([])
        func add(_ path: String) { paths.withLock { $0.append(path) } }
        var all: [String] { paths.withLock { $0 } }
    }

    @Test func theFullBuildsFolderWaitsForTheCoarsePyramid() {
        let registered = Registered()
        let order = CoarseFirst(register: registered.add)
        order.full("full")
        #expect(registered.all.isEmpty, "a strip of the image is not a view of it")
        order.coarse("coarse")
        #expect(registered.all == ["coarse", "full"])
    }

    @Test func aFullBuildThatStartsAfterTheCoarseOneEndsIsRegisteredAtOnce() {
        let registered = Registered()
        let order = CoarseFirst(register: registered.add)
        order.coarse("coarse")
        #expect(registered.all == ["coarse"])
        order.full("full")
        #expect(registered.all == ["coarse", "full"])
    }

    @Test func withoutACoarsePyramidTheFullBuildIsShownAsItFills() {
        let registered = Registered()
        let order = CoarseFirst(register: registered.add)
        order.full("full")
        order.coarseFailed()
        #expect(registered.all == ["full"])
    }

    @Test func eachFolderIsRegisteredOnceWhenBothBuildsRace() async {
        for _ in 0..<200 {
            let registered = Registered()
            let order = CoarseFirst(register: registered.add)
            await withTaskGroup(of: Void.self) { group in
                group.addTask { order.full("full") }
                group.addTask { order.coarse("coarse") }
            }
            #expect(registered.all == ["coarse", "full"])
        }
    }
}
