import Archive
import Synchronization

/// An archive in memory as an ``AsyncArchiveByteSource`` that records every read.
final class MemorySource: AsyncArchiveByteSource {
    let bytes: [UInt8]
    private let log = Mutex<[Range<UInt64>]>([])

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var size: UInt64 { UInt64(bytes.count) }
    /// The ranges read, in order.
    var reads: [Range<UInt64>] { log.withLock { $0 } }

    func read(at offset: UInt64, count: Int) async throws(ArchiveError) -> [UInt8] {
        log.withLock { $0.append(offset..<offset + UInt64(count)) }
        guard offset + UInt64(count) <= size else { throw ArchiveError("memory: the file ends inside a record at byte \(size)") }
        return Array(bytes[Int(offset)..<Int(offset) + count])
    }
}
