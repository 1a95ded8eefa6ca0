import Foundation

/// The process's memory high-water mark, as the kernel counts it.
public enum ResidentMemory {
    /// The peak resident set size in bytes (`VmHWM` in `/proc/self/status`), or `nil` where unavailable.
    public static func peakBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 3, fields[2] == "kB", let kibibytes = Int(fields[1]) else { return nil }
            return kibibytes * 1024
        }
        return nil
    }
}
