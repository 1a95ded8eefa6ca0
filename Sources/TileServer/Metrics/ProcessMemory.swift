import Glibc
import NIOCore
import Synchronization

/// What the process holds, and the glibc `malloc` settings and trimming that keep it close to what it uses.
///
/// Where the memory went (issue 30, item 7; `bench/memory-soak.sh`, `--cache-mb 64`): the soak peaked at 215–237 MiB
/// RSS, of which `malloc` had handed out about 105 MiB (the tile cache's 64 MiB of tiles, about 1.5 times that in
/// allocations, since NIO rounds every buffer up to a power of two, plus connections and the catalog; 25 MiB more are
/// code and libraries) and kept about 90 MiB free but resident: glibc gives every thread that allocates under contention an arena of its own, up to 8
/// per core (10 here), each keeping the chunks freed into it. Tiles are read on the event loops, the file threads and
/// the warming thread and freed on whichever loop evicts them, so every arena grows to its own high-water mark and
/// gives almost nothing back: free chunks inside a heap are returned only by `malloc_trim`. Two measures, both
/// measured on that soak (see docs/serving.md, "Sizing a server"):
/// - ``configure()`` caps the arenas (`M_ARENA_MAX` 2, unless `MALLOC_ARENA_MAX` is set): the threads the server
///   starts share the arenas that exist, instead of each growing its own (with the trimming below: peaks 147–151 MiB
///   in 15-s runs against 163–167 MiB with glibc's default).
/// - ``trimIfWorthwhile()``, every ``trimInterval`` on a file thread, calls `malloc_trim(0)` once the resident memory
///   has grown by ``trimThreshold`` since the last trim, which gives the free pages inside every heap back to the system
///   (under the soak about 2 trims a second of 6 ms each, 1% of a core; none when idle). The soak then peaked at
///   151–161 MiB.
enum ProcessMemory {
    /// The process's memory at one moment, as `/metrics` shows it.
    struct Sample: Sendable, Hashable {
        /// Resident memory (`VmRSS`), in bytes.
        var residentBytes = 0
        /// The most resident memory since the process started (`VmHWM`), in bytes.
        var residentPeakBytes = 0
        /// What `malloc` has taken from the system: its heaps (arenas) and its separately mapped big blocks, in bytes.
        var mallocSystemBytes = 0
        /// Of ``mallocSystemBytes``, what is free inside the heaps: kept for reuse, resident or not.
        var mallocFreeBytes = 0
        /// The heaps (`malloc` arenas) in use.
        var mallocArenas = 0
        /// Trims done (``trimIfWorthwhile()``).
        var trims = 0
        /// Resident bytes the trims gave back to the system.
        var trimmedBytes = 0
        /// Time spent trimming, in seconds.
        var trimSeconds = 0.0

        /// What `malloc` hands out now: ``mallocSystemBytes`` minus ``mallocFreeBytes``.
        var mallocInUseBytes: Int { mallocSystemBytes - mallocFreeBytes }
    }

    private struct Trims {
        var count = 0
        var bytes = 0
        var nanoseconds: UInt64 = 0
    }

    private static let trims = Mutex(Trims())

    /// The `malloc` entry points Swift's Glibc module does not import (`malloc.h`), looked up once.
    private struct Malloc: @unchecked Sendable {
        typealias Option = @convention(c) (Int32, Int32) -> Int32
        typealias Trim = @convention(c) (Int) -> Int32
        typealias Info = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        let option: Option?
        let trim: Trim?
        let info: Info?

        init() {
            let process = dlopen(nil, RTLD_NOW)
            option = dlsym(process, "mallopt").map { unsafeBitCast($0, to: Option.self) }
            trim = dlsym(process, "malloc_trim").map { unsafeBitCast($0, to: Trim.self) }
            info = dlsym(process, "malloc_info").map { unsafeBitCast($0, to: Info.self) }
        }
    }

    private static let malloc = Malloc()

    /// glibc's `mallopt` parameter `M_ARENA_MAX` (`malloc.h`).
    private static let arenaMaxParameter: Int32 = -8

    /// The most `malloc` arenas ``configure()`` allows (arenas created before it stay).
    static let arenaLimit: Int32 = 2

    /// How often the server calls ``trimIfWorthwhile()``.
    static let trimInterval = TimeAmount.milliseconds(500)

    /// Growth of the resident memory since the last trim above which ``trimIfWorthwhile()`` trims, in bytes.
    static let trimThreshold = 8 << 20

    /// Applies the `malloc` settings, once per process (later calls do nothing): call it before starting threads,
    /// which choose their arena when they first allocate. An operator's `MALLOC_ARENA_MAX` wins (glibc read it at
    /// start).
    static func configure() {
        _ = configured
    }

    private static let configured: Bool = {
        if getenv("MALLOC_ARENA_MAX") == nil, let option = malloc.option {
            _ = option(arenaMaxParameter, arenaLimit)
        }
        return true
    }()

    /// Gives the free pages inside the heaps back to the system (`malloc_trim`) when the resident memory has grown by
    /// more than ``trimThreshold`` since the last trim (or since it was last lower). One read of `/proc/self/statm`
    /// when it does not trim; blocking when it does: call it on a file thread.
    ///
    /// - Returns: Whether it trimmed.
    @discardableResult
    static func trimIfWorthwhile() -> Bool {
        guard let trim = malloc.trim else { return false }
        let result = trimming.withLockIfAvailable { baseline -> Bool in
            let before = resident()
            guard let floor = baseline, before > floor + trimThreshold else {
                baseline = min(baseline ?? before, before)
                return false
            }
            let start = NIODeadline.now()
            _ = trim(0)
            let nanoseconds = (NIODeadline.now() - start).nanoseconds
            let after = resident()
            baseline = after
            trims.withLock {
                $0.count += 1
                $0.bytes += max(0, before - after)
                $0.nanoseconds += UInt64(max(0, nanoseconds))
            }
            return true
        }
        return result ?? false
    }

    /// The resident bytes after the last trim, or the lowest seen since (`nil` before the first call); held while
    /// trimming, so that two servers in one process do not trim at once.
    private static let trimming = Mutex<Int?>(nil)

    /// The process's memory now: two small `/proc` reads and one `malloc_info` (which walks the heaps' free lists).
    static func sample() -> Sample {
        var sample = Sample()
        let status = procStatus()
        sample.residentBytes = status.resident
        sample.residentPeakBytes = status.peak
        let heap = heap()
        sample.mallocSystemBytes = heap.system
        sample.mallocFreeBytes = heap.free
        sample.mallocArenas = heap.arenas
        let trims = trims.withLock { $0 }
        sample.trims = trims.count
        sample.trimmedBytes = trims.bytes
        sample.trimSeconds = Double(trims.nanoseconds) / 1e9
        return sample
    }

    /// Resident bytes now, from `/proc/self/statm` (its second field, in pages).
    static func resident() -> Int {
        guard let text = ProcFile.read("/proc/self/statm") else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// `VmRSS` and `VmHWM` from `/proc/self/status`, in bytes.
    private static func procStatus() -> (resident: Int, peak: Int) {
        guard let text = ProcFile.read("/proc/self/status") else { return (0, 0) }
        var resident = 0
        var peak = 0
        for line in text.split(separator: "\n") where line.hasPrefix("Vm") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kib = Int(fields[1]) else { continue }
            if fields[0] == "VmRSS:" { resident = kib << 10 }
            if fields[0] == "VmHWM:" { peak = kib << 10 }
        }
        return (resident, peak)
    }

    /// The heaps' totals from `malloc_info`'s XML: the system bytes (heaps and mapped blocks), the free bytes in the
    /// heaps, and the number of heaps.
    private static func heap() -> (system: Int, free: Int, arenas: Int) {
        guard let info = malloc.info else { return (0, 0, 0) }
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return (0, 0, 0) }
        _ = info(0, stream)
        fclose(stream)
        guard let buffer else { return (0, 0, 0) }
        defer { free(buffer) }
        // Each heap's block ends with `</heap>`; the totals over all heaps follow the last one: fast and rest (free
        // chunks), mmap (blocks mapped on their own), system current (the heaps).
        var arenas = 0
        var system = 0
        var free = 0
        var inHeap = false
        for line in String(cString: buffer).split(separator: "\n") {
            if line.hasPrefix("<heap nr=") {
                arenas += 1
                inHeap = true
            } else if line.hasPrefix("</heap>") {
                inHeap = false
            }
            guard !inHeap, let size = attribute("size", in: line) else { continue }
            if line.hasPrefix("<total type=\"fast\"") || line.hasPrefix("<total type=\"rest\"") { free += size }
            if line.hasPrefix("<total type=\"mmap\"") || line.hasPrefix("<system type=\"current\"") { system += size }
        }
        return (system, free, arenas)
    }

    /// The number in `name="…"` in one line of `malloc_info`'s XML.
    private static func attribute(_ name: String, in line: Substring) -> Int? {
        let key = " \(name)=\""
        var rest = line[...]
        while let space = rest.firstIndex(of: " ") {
            rest = rest[space...]
            if rest.hasPrefix(key) {
                return Int(rest.dropFirst(key.count).prefix { $0.isNumber })
            }
            rest = rest.dropFirst()
        }
        return nil
    }
}
