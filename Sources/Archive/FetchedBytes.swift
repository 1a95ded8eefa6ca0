/// The parts of an archive fetched so far from an ``AsyncArchiveByteSource``, read as an ``ArchiveByteSource``: a read
/// inside them is served from memory; a read anywhere else fails and is remembered (``takeMissing()``), so that the
/// caller fetches it and parses again. This is how ``SZIArchive/init(source:label:tailBytes:)`` runs the one parser
/// the fd path runs, over bytes fetched with as few round trips as the archive's layout allows.
///
/// Not thread-safe: one open uses it, then drops it.
final class FetchedBytes: ArchiveByteSource {
    /// The archive's size in bytes.
    let size: UInt64
    private let label: String
    /// What was fetched: sorted by start, disjoint and not adjacent (touching windows are merged).
    private var windows: [(start: UInt64, bytes: [UInt8])] = []
    /// The range of the last read that was not fetched.
    private var missing: Range<UInt64>?

    /// No bytes yet of an archive of `size` bytes; `label` names it in errors.
    init(size: UInt64, label: String) {
        self.size = size
        self.label = label
    }

    /// Adds `bytes`, fetched from `start`. - Complexity: O(bytes held), merging windows that overlap or touch.
    func add(_ bytes: [UInt8], at start: UInt64) {
        var lower = start
        var upper = start + UInt64(bytes.count)
        let touching = windows.indices.filter { windows[$0].start <= upper && windows[$0].start + UInt64(windows[$0].bytes.count) >= lower }
        for index in touching {
            lower = min(lower, windows[index].start)
            upper = max(upper, windows[index].start + UInt64(windows[index].bytes.count))
        }
        var merged = [UInt8](repeating: 0, count: Int(upper - lower))
        for index in touching {
            let at = Int(windows[index].start - lower)
            merged.replaceSubrange(at..<at + windows[index].bytes.count, with: windows[index].bytes)
        }
        merged.replaceSubrange(Int(start - lower)..<Int(start - lower) + bytes.count, with: bytes)
        for index in touching.reversed() { windows.remove(at: index) }
        windows.append((lower, merged))
        windows.sort { $0.start < $1.start }
    }

    /// Whether all of `range` was fetched.
    func holds(_ range: Range<UInt64>) -> Bool {
        window(holding: range) != nil
    }

    /// The fetched bytes of `count` at `offset`; anything else fails, and a range inside the archive not fetched is
    /// remembered for ``takeMissing()``.
    func read(at offset: UInt64, count: Int) throws(ArchiveError) -> [UInt8] {
        let (end, overflow) = offset.addingReportingOverflow(UInt64(count))
        guard !overflow, end <= size else { throw ArchiveError("\(label): the file ends inside a record at byte \(max(offset, size))") }
        guard count > 0 else { return [] }
        guard let index = window(holding: offset..<end) else {
            missing = offset..<end
            throw ArchiveError("\(label): bytes \(offset)-\(end - 1) were needed but not fetched")
        }
        let from = Int(offset - windows[index].start)
        return Array(windows[index].bytes[from..<from + count])
    }

    /// The range the last failed read wanted, once: nil when no read failed for want of bytes since the last call.
    func takeMissing() -> Range<UInt64>? {
        defer { missing = nil }
        return missing
    }

    /// What to fetch for `missing`: from `lead` bytes before it (entries written just before a central directory, the
    /// descriptor among them, come in the same read), up to where fetched bytes take over.
    func rangeToFetch(for missing: Range<UInt64>, lead: UInt64) -> Range<UInt64> {
        let lower = missing.lowerBound - min(missing.lowerBound, lead)
        var upper = missing.upperBound
        if let index = windows.firstIndex(where: { $0.start > lower && $0.start < upper && $0.start + UInt64($0.bytes.count) >= upper }) {
            upper = max(windows[index].start, missing.lowerBound + 1)
        }
        return lower..<upper
    }

    private func window(holding range: Range<UInt64>) -> Int? {
        windows.firstIndex { $0.start <= range.lowerBound && range.upperBound <= $0.start + UInt64($0.bytes.count) }
    }
}
