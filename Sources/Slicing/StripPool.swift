import Foundation

/// Recycles strip buffers, at most `perLevel` per level (or an exception's count), and so bounds the builder's memory
/// by image width.
///
/// The decoding thread blocks in ``acquire(level:rowBytes:capacityRows:)`` while all of a level's strips are still
/// being encoded, and in ``reclaim(_:)`` while a level of one strip has its strip's tiles still being encoded: that is
/// the pipeline's back-pressure. Workers never wait on the decoder, so every submitted strip comes back and the wait
/// always ends.
final class StripPool: @unchecked Sendable {
    // @unchecked: every stored property is read and written under `condition`.
    private let condition = NSCondition()
    private let perLevel: Int
    private let exceptions: [Int: Int]
    private var free: [Int: [StripBuffer]] = [:]
    private var allocated: [Int: Int] = [:]
    private var bytes = 0
    private var peak = 0
    private var waitObserver: (@Sendable (Bool) -> Void)?

    /// Creates an empty pool allowing `perLevel` strips per level (≥ 1), and `exceptions[level]` (≥ 1) to the levels
    /// it names.
    init(perLevel: Int, exceptions: [Int: Int] = [:]) {
        precondition(perLevel >= 1 && exceptions.values.allSatisfy { $0 >= 1 })
        self.perLevel = perLevel
        self.exceptions = exceptions
    }

    /// How many strips `level` may have at once.
    func limit(_ level: Int) -> Int {
        exceptions[level] ?? perLevel
    }

    /// Calls `observer` with `true` when ``acquire(level:rowBytes:capacityRows:)`` is about to wait, and with `false`
    /// once that wait is over; outside the pool's lock, on the acquiring thread.
    func observeWaits(_ observer: @escaping @Sendable (Bool) -> Void) {
        condition.withLock { waitObserver = observer }
    }

    /// A strip of `level`, reused or newly allocated, waiting while the level already has ``limit(_:)`` in use.
    func acquire(level: Int, rowBytes: Int, capacityRows: Int) -> StripBuffer {
        waitFor {
            if let reused = free[level]?.popLast() { return reused }
            guard allocated[level, default: 0] < limit(level) else { return nil }
            allocated[level, default: 0] += 1
            let strip = StripBuffer(level: level, rowBytes: rowBytes, capacityRows: capacityRows)
            account(strip.byteCount)
            return strip
        }
    }

    /// Waits until the caller's is the only hold left on `strip`, a submitted strip of a level allowed one strip, and
    /// gives it back to the caller to fill again (its jobs have all read it).
    func reclaim(_ strip: StripBuffer) {
        waitFor { () -> Void? in
            guard strip.holds <= 1 else { return nil }
            precondition(strip.holds == 1, "strip reclaimed without the caller's hold")
            strip.holds = 0
        }
    }

    /// Tries `take` under the lock until it gives a value, waiting for a release between tries; the wait observer is
    /// told (outside the lock) before the first wait and after the last.
    private func waitFor<Value>(_ take: () -> Value?) -> Value {
        var told: (@Sendable (Bool) -> Void)?
        condition.lock()
        var value = take()
        while value == nil {
            if told == nil, let observer = waitObserver {
                // Told outside the lock, then looked at again: a strip released meanwhile is not missed.
                told = observer
                condition.unlock()
                observer(true)
                condition.lock()
            } else {
                condition.wait()
            }
            value = take()
        }
        condition.unlock()
        told?(false)
        return value!
    }

    /// Marks a filled strip submitted to `holds` holders (≥ 1).
    func submit(_ strip: StripBuffer, holds: Int) {
        condition.withLock { strip.holds = holds }
    }

    /// Drops one hold on a submitted strip; the last one returns it to the pool.
    func release(_ strip: StripBuffer) {
        condition.withLock {
            strip.holds -= 1
            precondition(strip.holds >= 0, "strip released too often")
            if strip.holds == 0 {
                free[strip.level, default: []].append(strip)
                condition.broadcast()
            } else if strip.holds == 1 {
                condition.broadcast()  // for reclaim(_:)
            }
        }
    }

    /// Counts `count` bytes held outside strips (row carries) towards the total.
    func account(extra count: Int) {
        condition.withLock { account(count) }
    }

    /// The most bytes held at once.
    var peakBytes: Int {
        condition.withLock { peak }
    }

    private func account(_ count: Int) {
        bytes += count
        peak = max(peak, bytes)
    }
}
