import CZlib
import Glibc
import Synchronization

/// Writes a stored (uncompressed) ZIP archive streaming: entries are appended as they come, from any number of
/// threads, and the central directory is written once at the end. ZIP64 records are used where the format needs them
/// (an entry starting past 4 GiB, more than 65,535 entries, a central directory past 4 GiB), so archives of any size
/// open in Python's `zipfile`, Info-ZIP's `unzip` and libvips.
///
/// Each entry's CRC-32 is computed by the calling thread before anything is written, so its local header is complete
/// (no data descriptor) and the archive is written with one `pwritev` per entry at an offset reserved under a lock: the
/// writes themselves run in parallel. The central directory is kept in memory as it grows — about 32 bytes plus the
/// name per entry, in two arrays, not one allocation per entry.
public final class ZIPWriter: Sendable {
    /// One entry of the central directory to come.
    private struct Entry {
        var offset: UInt64
        var crc: UInt32
        var size: UInt32
        var nameStart: Int
        var nameLength: Int
    }

    private struct State {
        /// Where the next entry goes, and how far the archive is written without a gap (followed for `onWritten`).
        var frontier: WriteFrontier
        var entries: [Entry] = []
        var names: [UInt8] = []
        var finished = false
        var closed = false
    }

    /// The archive's path.
    public let path: String
    private let descriptor: Int32
    private let zip64Threshold: UInt64
    private let dosTime: UInt16
    private let dosDate: UInt16
    private let state: Mutex<State>
    private let onWritten: (@Sendable (_ through: UInt64) -> Void)?

    /// Creates the file `path`, which must not exist.
    ///
    /// - Parameter zip64Threshold: Offsets and counts from this on are written as ZIP64 (the format's limit,
    ///   0xFFFFFFFF, unless a test wants the ZIP64 records of a small archive).
    ///   - onWritten: Called, from the writing thread, whenever more of the archive is written for good: its bytes before
    ///     `through` are final (for sending them on while the rest is written); last with the archive's size.
    /// - Throws: ``ArchiveError`` when the file cannot be created.
    public init(
        path: String, zip64Threshold: UInt64 = UInt64(UInt32.max), onWritten: (@Sendable (_ through: UInt64) -> Void)? = nil
    ) throws(ArchiveError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ArchiveError("cannot create \(path)", errno: errno) }
        self.path = path
        self.descriptor = fd
        self.zip64Threshold = min(zip64Threshold, UInt64(ZIPLayout.marker32))
        self.onWritten = onWritten
        state = Mutex(State(frontier: WriteFrontier(tracking: onWritten != nil)))
        (dosTime, dosDate) = Self.dosNow()
    }

    deinit {
        state.withLock { state in
            if !state.closed { close(descriptor) }
        }
    }

    /// Appends a stored entry named `name` (a relative path with `/` separators) holding `bytes`.
    ///
    /// Thread-safe. - Complexity: O(`bytes.count`) for the CRC, then one `pwritev`.
    /// - Throws: ``ArchiveError`` on a write error, or for an entry of 4 GiB or more.
    public func append(name: String, bytes: UnsafeRawBufferPointer) throws(ArchiveError) {
        guard UInt64(bytes.count) < UInt64(ZIPLayout.marker32) else { throw ArchiveError("\(path): entry \(name) is 4 GiB or larger") }
        let crc = bytes.isEmpty ? 0 : tiler_crc32(0, bytes.baseAddress, bytes.count)
        var header: [UInt8] = []
        header.reserveCapacity(ZIPLayout.localHeaderSize + name.utf8.count)
        header.appendLE(ZIPLayout.localHeaderSignature)
        header.appendLE(ZIPLayout.versionPlain)
        header.appendLE(UInt16(0))  // flags
        header.appendLE(UInt16(0))  // stored
        header.appendLE(dosTime)
        header.appendLE(dosDate)
        header.appendLE(crc)
        header.appendLE(UInt32(bytes.count))
        header.appendLE(UInt32(bytes.count))
        header.appendLE(UInt16(name.utf8.count))
        header.appendLE(UInt16(0))  // extra
        header.append(contentsOf: name.utf8)
        let offset = try state.withLock { (state) throws(ArchiveError) -> UInt64 in
            guard !state.finished else { throw ArchiveError("\(path): entry \(name) appended after the end") }
            let offset = state.frontier.reserve(UInt64(header.count + bytes.count))
            state.entries.append(
                Entry(offset: offset, crc: crc, size: UInt32(bytes.count), nameStart: state.names.count, nameLength: name.utf8.count))
            state.names.append(contentsOf: name.utf8)
            return offset
        }
        try header.withUnsafeBytes { header in
            Result { () throws(ArchiveError) in try write(header, then: bytes, at: offset) }
        }.get()
        guard let onWritten, let through = state.withLock({ $0.frontier.finished(at: offset) }) else { return }
        onWritten(through)
    }

    /// Writes the central directory and the end records, and closes the file (no `fsync`, as for folder pyramids).
    /// No entry may be appended afterwards.
    ///
    /// - Returns: The archive's size in bytes.
    /// - Throws: ``ArchiveError`` on a write or `close` error.
    public func finish() throws(ArchiveError) -> UInt64 {
        let state = self.state.withLock { state in
            state.finished = true
            return state
        }
        let directoryStart = state.frontier.end
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 16)
        var at = directoryStart
        for entry in state.entries {
            appendCentralHeader(entry, names: state.names, to: &chunk)
            if chunk.count >= 60_000 {
                try write(chunk, at: at)
                at += UInt64(chunk.count)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        let directorySize = at + UInt64(chunk.count) - directoryStart
        appendEnd(count: UInt64(state.entries.count), directoryStart: directoryStart, directorySize: directorySize, to: &chunk)
        try write(chunk, at: at)
        let closed = self.state.withLock { state in
            state.closed = true
            return close(descriptor) == 0 ? nil : errno
        }
        if let closed { throw ArchiveError("cannot write \(path)", errno: closed) }
        onWritten?(at + UInt64(chunk.count))
        return at + UInt64(chunk.count)
    }

    private func appendCentralHeader(_ entry: Entry, names: [UInt8], to out: inout [UInt8]) {
        let far = entry.offset >= zip64Threshold
        out.appendLE(ZIPLayout.centralHeaderSignature)
        out.appendLE(ZIPLayout.madeByUnix)
        out.appendLE(far ? ZIPLayout.versionZIP64 : ZIPLayout.versionPlain)
        out.appendLE(UInt16(0))
        out.appendLE(UInt16(0))
        out.appendLE(dosTime)
        out.appendLE(dosDate)
        out.appendLE(entry.crc)
        out.appendLE(entry.size)
        out.appendLE(entry.size)
        out.appendLE(UInt16(entry.nameLength))
        out.appendLE(UInt16(far ? 12 : 0))
        out.appendLE(UInt16(0))  // comment
        out.appendLE(UInt16(0))  // disk
        out.appendLE(UInt16(0))  // internal attributes
        out.appendLE(UInt32(0o100644) << 16)
        out.appendLE(far ? ZIPLayout.marker32 : UInt32(entry.offset))
        out.append(contentsOf: names[entry.nameStart..<entry.nameStart + entry.nameLength])
        if far {
            out.appendLE(ZIPLayout.zip64ExtraTag)
            out.appendLE(UInt16(8))
            out.appendLE(entry.offset)
        }
    }

    /// The end of central directory record, preceded by the ZIP64 record and locator when a value does not fit.
    private func appendEnd(count: UInt64, directoryStart: UInt64, directorySize: UInt64, to out: inout [UInt8]) {
        let needsZIP64 =
            count >= UInt64(min(zip64Threshold, UInt64(ZIPLayout.marker16))) || directoryStart >= zip64Threshold
            || directorySize >= zip64Threshold
        if needsZIP64 {
            let recordOffset = directoryStart + directorySize
            out.appendLE(ZIPLayout.zip64EndSignature)
            out.appendLE(UInt64(ZIPLayout.zip64EndSize - 12))
            out.appendLE(ZIPLayout.madeByUnix)
            out.appendLE(ZIPLayout.versionZIP64)
            out.appendLE(UInt32(0))
            out.appendLE(UInt32(0))
            out.appendLE(count)
            out.appendLE(count)
            out.appendLE(directorySize)
            out.appendLE(directoryStart)
            out.appendLE(ZIPLayout.zip64LocatorSignature)
            out.appendLE(UInt32(0))
            out.appendLE(recordOffset)
            out.appendLE(UInt32(1))
        }
        out.appendLE(ZIPLayout.endSignature)
        out.appendLE(UInt16(0))
        out.appendLE(UInt16(0))
        let shortCount = needsZIP64 ? ZIPLayout.marker16 : UInt16(count)
        out.appendLE(shortCount)
        out.appendLE(shortCount)
        out.appendLE(needsZIP64 ? ZIPLayout.marker32 : UInt32(directorySize))
        out.appendLE(needsZIP64 ? ZIPLayout.marker32 : UInt32(directoryStart))
        out.appendLE(UInt16(0))
    }

    /// Writes all of `bytes` at `offset`.
    private func write(_ bytes: [UInt8], at offset: UInt64) throws(ArchiveError) {
        try bytes.withUnsafeBytes { bytes in Result { () throws(ArchiveError) in try write(bytes, at: offset) } }.get()
    }

    /// Writes `first` then `second` at `offset` with one `pwritev` (a tile's local header and its bytes: one call a
    /// tile, not two), continuing a short write with ``write(_:at:)``.
    private func write(_ first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer, at offset: UInt64) throws(ArchiveError) {
        var vectors = [
            iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count),
            iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count),
        ]
        var written: Int
        repeat {
            written = pwritev(descriptor, &vectors, 2, off_t(offset))
        } while written < 0 && errno == EINTR
        if written < 0 { throw ArchiveError("cannot write \(path)", errno: errno) }
        if written < first.count {
            try write(UnsafeRawBufferPointer(rebasing: first[written...]), at: offset + UInt64(written))
            try write(second, at: offset + UInt64(first.count))
        } else if written < first.count + second.count {
            try write(UnsafeRawBufferPointer(rebasing: second[(written - first.count)...]), at: offset + UInt64(written))
        }
    }

    /// Writes all of `bytes` at `offset`, continuing short writes and retrying `EINTR`.
    private func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(ArchiveError) {
        var done = 0
        while done < bytes.count {
            let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if written < 0 {
                if errno == EINTR { continue }
                throw ArchiveError("cannot write \(path)", errno: errno)
            }
            if written == 0 { throw ArchiveError("cannot write \(path)", errno: EIO) }
            done += written
        }
    }

    /// The current local time as MS-DOS time and date fields.
    private static func dosNow() -> (UInt16, UInt16) {
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil, parts.tm_year >= 80 else { return (0, 0x21) }
        let time = UInt16(parts.tm_hour << 11 | parts.tm_min << 5 | parts.tm_sec / 2)
        let date = UInt16((parts.tm_year - 80) << 9 | (parts.tm_mon + 1) << 5 | parts.tm_mday)
        return (time, date)
    }
}
