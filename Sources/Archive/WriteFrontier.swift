/// How far a file written at reserved offsets, by several threads at once, is written without a gap: writes are
/// reserved in offset order and may finish in any order; the frontier is the start of the first reserved write not yet
/// finished (the reserved end when all have). What lies before it is final, so it can be sent on (a multipart upload)
/// while the file is still being written. Not thread-safe: keep it under the writer's lock.
///
/// Memory: 9 bytes per write reserved and not yet passed by the frontier; O(1) amortised per operation.
public struct WriteFrontier: Sendable {
    /// Reserved writes not yet passed by the frontier, in offset order, from `head` on.
    private var pending: [(offset: UInt64, done: Bool)] = []
    private var head = 0
    /// The end of everything reserved, in bytes.
    public private(set) var end: UInt64 = 0
    /// Whether writes are followed; if not, the frontier is only ever the reserved end (no memory, no work).
    public let isTracking: Bool

    /// A frontier at offset 0 with nothing reserved; `tracking`: follow the writes (else only reserve).
    public init(tracking: Bool = true) { isTracking = tracking }

    /// The bytes before this offset are all written.
    public var frontier: UInt64 { head < pending.count ? pending[head].offset : end }

    /// Reserves `count` bytes at the end; returns their offset. A write of no bytes is reserved and finished at once.
    public mutating func reserve(_ count: UInt64) -> UInt64 {
        let offset = end
        end += count
        if count > 0 && isTracking { pending.append((offset, false)) }
        return offset
    }

    /// The write reserved at `offset` finished; returns the new frontier when it moved.
    ///
    /// - Complexity: O(writes in flight) to find it, about the number of writing threads.
    public mutating func finished(at offset: UInt64) -> UInt64? {
        guard let index = pending[head...].firstIndex(where: { $0.offset == offset }) else { return nil }
        pending[index].done = true
        guard index == head else { return nil }
        while head < pending.count && pending[head].done { head += 1 }
        if head > 1024 && head * 2 > pending.count {
            pending.removeFirst(head)
            head = 0
        }
        return frontier
    }
}
