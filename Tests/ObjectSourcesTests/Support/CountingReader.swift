import NIOCore
import ObjectStore
import Synchronization

/// An ``ObjectReader`` that passes everything to a real one and counts what it asks of the store: each `read` is one
/// ranged GET, each `info` one HEAD. How the tests see what an open or a tile read costs.
final class CountingReader: ObjectReader {
    let base: any ObjectReader
    private let counts = Mutex((gets: 0, heads: 0, ranges: [Range<Int>]()))

    init(_ base: any ObjectReader) {
        self.base = base
    }

    var name: String { base.name }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }

    /// Ranged GETs sent so far.
    var gets: Int { counts.withLock { $0.gets } }
    /// HEADs sent so far.
    var heads: Int { counts.withLock { $0.heads } }
    /// The ranges of the GETs, in order (shown when a count is not what a test expects).
    var ranges: [Range<Int>] { counts.withLock { $0.ranges } }

    func info(_ key: String, on eventLoop: any EventLoop) -> EventLoopFuture<ObjectInfo> {
        counts.withLock { $0.heads += 1 }
        return base.info(key, on: eventLoop)
    }

    func read(_ key: String, range: Range<Int>, ifMatch: String?, on eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer> {
        counts.withLock {
            $0.gets += 1
            $0.ranges.append(range)
        }
        return base.read(key, range: range, ifMatch: ifMatch, on: eventLoop)
    }

    func list(prefix: String, on eventLoop: any EventLoop) -> EventLoopFuture<[ObjectInfo]> {
        base.list(prefix: prefix, on: eventLoop)
    }
}
