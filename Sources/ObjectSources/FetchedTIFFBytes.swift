import ImageCodecs
import Synchronization

/// The bytes of a TIFF in a store fetched so far, read as a ``ImageCodecs/TIFFByteSource``: a read inside them is
/// served from memory; a read anywhere else within the TIFF fails and is remembered (``takeMissing()``), so that the
/// caller fetches it and opens again; a read at or past the end gives what there is (libtiff then sees the end of the
/// file, as for a file cut short). How ``ObjectTIFFPyramid`` runs libtiff over a TIFF's directories with as few round
/// trips as its layout allows — the TIFF twin of the Archive target's `FetchedBytes`.
///
/// Once an open succeeds, ``keepTouched()`` drops every byte that open did not read: what is kept is what the
/// pyramid's decoding handles read again (its directories), so that an image costs its directories in memory, not
/// its first reads. Thread-safe: those handles read from several threads.
final class FetchedTIFFBytes: TIFFByteSource {
    /// The TIFF's size in bytes.
    let size: Int
    private let state = Mutex(State())

    private struct State {
        /// What was fetched: sorted by start, disjoint and not adjacent (touching windows are merged).
        var windows: [(start: Int, bytes: [UInt8])] = []
        /// The first range an attempt wanted that was not fetched.
        var missing: Range<Int>?
        /// The ranges the attempt read.
        var touched: [Range<Int>] = []
    }

    /// No bytes yet of a TIFF of `size` bytes.
    init(size: Int) {
        self.size = size
    }

    /// The bytes held, in total.
    var heldBytes: Int { state.withLock { $0.windows.reduce(0) { $0 + $1.bytes.count } } }

    /// Adds `bytes`, fetched from `start`. - Complexity: O(bytes held), merging windows that overlap or touch.
    func add(_ bytes: [UInt8], at start: Int) {
        state.withLock { state in
            var lower = start
            var upper = start + bytes.count
            let touching = state.windows.indices.filter {
                state.windows[$0].start <= upper && state.windows[$0].start + state.windows[$0].bytes.count >= lower
            }
            for index in touching {
                lower = min(lower, state.windows[index].start)
                upper = max(upper, state.windows[index].start + state.windows[index].bytes.count)
            }
            var merged = [UInt8](repeating: 0, count: upper - lower)
            for index in touching {
                let at = state.windows[index].start - lower
                merged.replaceSubrange(at..<at + state.windows[index].bytes.count, with: state.windows[index].bytes)
            }
            merged.replaceSubrange(start - lower..<start - lower + bytes.count, with: bytes)
            for index in touching.reversed() { state.windows.remove(at: index) }
            state.windows.append((lower, merged))
            state.windows.sort { $0.start < $1.start }
        }
    }

    /// The bytes at `offset` that fit in `buffer` (fewer at the end of the TIFF, none past it), or nil when they were
    /// not fetched (remembered for ``takeMissing()``).
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard offset < size, buffer.count > 0 else { return 0 }
        let wanted = offset..<min(size, offset + min(buffer.count, size - offset))
        return state.withLock { state in
            guard let index = Self.window(holding: wanted, in: state.windows) else {
                if state.missing == nil { state.missing = wanted }
                return nil
            }
            let window = state.windows[index]
            window.bytes.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[wanted.lowerBound - window.start..<wanted.upperBound - window.start]))
            }
            state.touched.append(wanted)
            return wanted.count
        }
    }

    /// Forgets what the last attempt wanted and read, before another.
    func beginAttempt() {
        state.withLock {
            $0.missing = nil
            $0.touched = []
        }
    }

    /// The first range the attempt wanted that was not fetched; nil when it had every byte it read.
    func takeMissing() -> Range<Int>? {
        state.withLock { $0.missing }
    }

    /// Keeps only the bytes the attempt read (merged into windows), dropping the rest.
    func keepTouched() {
        state.withLock { state in
            var kept: [(start: Int, bytes: [UInt8])] = []
            for range in state.touched.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if let last = kept.last, range.lowerBound <= last.start + last.bytes.count {
                    let end = last.start + last.bytes.count
                    guard range.upperBound > end else { continue }
                    kept[kept.count - 1].bytes += Self.bytes(end..<range.upperBound, in: state.windows)
                } else {
                    kept.append((range.lowerBound, Self.bytes(range, in: state.windows)))
                }
            }
            state.windows = kept
            state.touched = []
        }
    }

    /// What to fetch for `missing`: from its start (bytes held there skipped; from the end of the bytes held before it
    /// when fewer than `minimum` lie between) to `growth` times its length past it (at most 16 MiB more than it), at
    /// least `minimum` bytes, within the TIFF, and up to where held bytes take over after it. A directory's values follow
    /// it, a level's two tile tables lie side by side (either first), and a level's tables are followed by the next
    /// level's: one read brings them together.
    func rangeToFetch(for missing: Range<Int>, minimum: Int, growth: Int = 4) -> Range<Int> {
        state.withLock { state in
            var lower = missing.lowerBound
            if let held = state.windows.first(where: { $0.start <= lower && lower < $0.start + $0.bytes.count }) {
                lower = held.start + held.bytes.count
            } else if let before = state.windows.last(where: { $0.start + $0.bytes.count <= lower }),
                lower - (before.start + before.bytes.count) < minimum
            {
                lower = before.start + before.bytes.count
            }
            let extra = min((growth - 1) * missing.count, 16 << 20)
            var upper = min(size, max(missing.upperBound + extra, lower + minimum))
            if let next = state.windows.first(where: { $0.start >= missing.upperBound && $0.start < upper }) { upper = next.start }
            return lower..<max(upper, min(size, lower + 1))
        }
    }

    private static func window(holding range: Range<Int>, in windows: [(start: Int, bytes: [UInt8])]) -> Int? {
        windows.firstIndex { $0.start <= range.lowerBound && range.upperBound <= $0.start + $0.bytes.count }
    }

    /// The bytes of `range`, which one window holds (it was read from one).
    private static func bytes(_ range: Range<Int>, in windows: [(start: Int, bytes: [UInt8])]) -> [UInt8] {
        guard let index = window(holding: range, in: windows) else { return [] }
        let window = windows[index]
        return Array(window.bytes[range.lowerBound - window.start..<range.upperBound - window.start])
    }
}
