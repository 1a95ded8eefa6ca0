/// Positioned reads of one archive's bytes: what ``ZIPDirectory`` and ``SZIArchive`` are parsed from, whatever holds
/// them. ``FileByteSource`` reads a file descriptor with `pread`; the bytes of an archive in an object store are
/// fetched through an ``AsyncArchiveByteSource`` and parsed from memory (``SZIArchive/init(source:label:tailBytes:)``).
///
/// Synchronous on purpose: parsing is computation over bytes, and the fd path, which the server uses for every local
/// archive, stays as it was. A source whose every read is a network round trip is not read through this protocol (that
/// would block a thread for each read, and must never run on an event loop) but fetched ahead, asynchronously, into
/// memory that is.
public protocol ArchiveByteSource {
    /// The archive's size in bytes.
    var size: UInt64 { get }

    /// The `count` bytes at `offset`, all of them, or an error: one line naming the archive (`the file ends inside a
    /// record at byte N` when the archive is shorter).
    func read(at offset: UInt64, count: Int) throws(ArchiveError) -> [UInt8]

    /// Whether the bytes of `range` are already in memory, so that reading them costs neither a system call nor a
    /// round trip. ``ZIPDirectory/LocalHeaders/derive`` checks every local header that is. The default: false.
    func holds(_ range: Range<UInt64>) -> Bool
}

extension ArchiveByteSource {
    /// False: every read goes to the file or the store.
    public func holds(_ range: Range<UInt64>) -> Bool { false }
}

/// Positioned reads that each cost a round trip: a ranged GET of an object store (about 40 ms, whatever the length up
/// to a few hundred KiB). ``SZIArchive/init(source:label:tailBytes:)`` opens an SZI from one with one or two reads,
/// and ``SZIArchive/readTile(level:column:row:from:)`` reads a tile with one.
///
/// Asynchronous, so that no thread waits on the network: a conformance awaits its store's future.
public protocol AsyncArchiveByteSource: Sendable {
    /// The archive's size in bytes, as known when the source was made (a store's HEAD or listing).
    var size: UInt64 { get }

    /// The `count` bytes at `offset` (`count` ≥ 1), all of them, of the version of the archive ``size`` describes:
    /// fewer bytes, or bytes of a replaced archive, are an error, never returned.
    func read(at offset: UInt64, count: Int) async throws(ArchiveError) -> [UInt8]
}
