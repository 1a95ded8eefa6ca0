import Foundation

/// Who made a staging folder, written into it as `.owner` when it is created, so that a later slice can tell a folder
/// whose slice was killed from one still being built.
///
/// The file is one line of `key=value` words, e.g.
/// `pid=4242 host=photo-box start=8812345 boot=0b5e…c1 pidns=4026531836`. `start` is the process start time in clock
/// ticks after boot (`/proc/PID/stat` field 22), so a recycled PID is not taken for the owner; `boot` is the kernel's
/// boot id and `pidns` the PID namespace's inode, so a PID of an earlier boot or of another container is never
/// looked up among this one's processes. A value this system cannot tell is `-`.
struct StagingOwner: Equatable, Sendable {
    /// The slicing process.
    var pid: Int32
    /// The host name, spaces and control characters turned into `_`.
    var host: String
    /// The process start time in clock ticks after boot, as `/proc` shows it; nil when unknown.
    var startTime: String?
    /// `/proc/sys/kernel/random/boot_id`; nil when unknown.
    var bootID: String?
    /// The inode of `/proc/self/ns/pid`; nil when unknown.
    var pidNamespace: String?

    /// The owner file's name inside a staging folder.
    static let fileName = ".owner"

    /// What became of an owner, seen from this process.
    enum Standing: Equatable {
        /// Its process runs, or cannot be told from a process that runs: the folder is in use.
        case alive
        /// It ran on another host or in another PID namespace, whose processes cannot be looked up from here.
        case elsewhere
        /// Its process has ended, or its PID now belongs to a later process.
        case gone
        /// This host has restarted since.
        case goneBeforeRestart
    }

    /// What a look-up of a PID found.
    enum Probe: Equatable {
        /// No process has the PID.
        case absent
        /// A process has it, started at this time (nil when unknown).
        case present(startTime: String?)
    }

    /// This process.
    static func current() -> StagingOwner {
        let pid = getpid()
        return StagingOwner(
            pid: pid, host: hostName(), startTime: startTime(of: pid), bootID: readSmallFile("/proc/sys/kernel/random/boot_id").map(word),
            pidNamespace: pidNamespace())
    }

    /// The owner file's text.
    var line: String {
        "pid=\(pid) host=\(host) start=\(startTime ?? "-") boot=\(bootID ?? "-") pidns=\(pidNamespace ?? "-")\n"
    }

    /// Reads an owner file's text; nil unless it has a positive `pid` and a `host`.
    init?(parsing text: String) {
        var values: [Substring: Substring] = [:]
        for word in text.split(whereSeparator: \.isWhitespace) {
            guard let equals = word.firstIndex(of: "=") else { continue }
            values[word[..<equals]] = word[word.index(after: equals)...]
        }
        guard let pidText = values["pid"], let pid = Int32(pidText), pid > 0, let host = values["host"], !host.isEmpty else { return nil }
        let known = { (key: Substring) in values[key].flatMap { $0 == "-" || $0.isEmpty ? nil : String($0) } }
        self.init(pid: pid, host: String(host), startTime: known("start"), bootID: known("boot"), pidNamespace: known("pidns"))
    }

    init(pid: Int32, host: String, startTime: String?, bootID: String?, pidNamespace: String?) {
        self.pid = pid
        self.host = host
        self.startTime = startTime
        self.bootID = bootID
        self.pidNamespace = pidNamespace
    }

    /// Whether this owner's process still runs, seen from `here` (this process's own record); `probe` looks a PID up.
    func standing(from here: StagingOwner, probe: (Int32) -> Probe = Self.probe) -> Standing {
        guard host == here.host else { return .elsewhere }
        if let bootID, let current = here.bootID, bootID != current { return .goneBeforeRestart }
        if let pidNamespace, let current = here.pidNamespace, pidNamespace != current { return .elsewhere }
        switch probe(pid) {
        case .absent:
            return .gone
        case .present(let now):
            if let startTime, let now, startTime != now { return .gone }
            return .alive
        }
    }

    /// Looks `pid` up on this host: `kill(pid, 0)` for whether it exists, `/proc` for when it started.
    static func probe(_ pid: Int32) -> Probe {
        // EPERM: the process exists but belongs to someone else.
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return .absent }
        return .present(startTime: startTime(of: pid))
    }

    /// When `pid` started, in clock ticks after boot: field 22 of `/proc/PID/stat`; nil without `/proc`.
    static func startTime(of pid: Int32) -> String? {
        readSmallFile("/proc/\(pid)/stat").flatMap(startTime(inStat:))
    }

    /// Field 22 of the text of a `/proc/PID/stat`. The command name (field 2) is in parentheses and may hold spaces
    /// and `)`, so the fields are counted from the last `)`: the state (field 3) is the first word after it.
    static func startTime(inStat stat: String) -> String? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, fields[19].allSatisfy(\.isNumber) else { return nil }
        return String(fields[19])
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "-" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "-" : word(name)
    }

    /// The digits of `pid:[4026531836]`.
    private static func pidNamespace() -> String? {
        var buffer = [CChar](repeating: 0, count: 128)
        let count = readlink("/proc/self/ns/pid", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let digits = buffer.prefix(count).map { UInt8(bitPattern: $0) }.filter { (0x30...0x39).contains($0) }
        return digits.isEmpty ? nil : String(decoding: digits, as: UTF8.self)
    }

    /// `text` as one word: surrounding whitespace dropped, inner spaces, `=` and control characters turned into `_`.
    private static func word(_ text: String) -> String {
        let isSeparator = { (c: Character) in c.isWhitespace || c == "=" || c.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }
        return String(text.trimmingCharacters(in: .whitespacesAndNewlines).map { isSeparator($0) ? "_" : $0 })
    }

    /// The first 4 KiB of a file (`/proc` files report size 0, so this reads until end of file).
    static func readSmallFile(_ path: String, in folder: Int32 = AT_FDCWD) -> String? {
        let fd = openat(folder, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            count += got
        }
        return String(decoding: bytes.prefix(count), as: UTF8.self)
    }
}
