import Foundation

/// A progress display on standard error: a live line redrawn in place on a terminal, or a plain line every few
/// seconds when standard error is a file or a pipe (batch jobs, CI logs).
final class ProgressLine {
    private let label: String
    private let total: Int
    private let unit: String
    private let start = Date()
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private var lastDraw = Date.distantPast
    private var drewLive = false
    private var reportedEnd = false

    /// A display for `total` units of work (rows, tiles, …).
    init(label: String, total: Int, unit: String) {
        self.label = label
        self.total = max(total, 1)
        self.unit = unit
    }

    /// Reports `done` units and `pixels` processed so far; redraws at most 10 times a second (terminal) or
    /// every 5 seconds (otherwise). `extra` is appended to the line.
    func update(_ done: Int, pixels: Int, extra: String = "") {
        let now = Date()
        let interval = isTerminal ? 0.1 : 5
        let atEnd = done >= total && !reportedEnd
        guard now.timeIntervalSince(lastDraw) >= interval || atEnd else { return }
        if done >= total { reportedEnd = true }
        lastDraw = now
        let elapsed = now.timeIntervalSince(start)
        let fraction = min(1, Double(done) / Double(total))
        let rate = elapsed > 0 ? Double(pixels) / 1e6 / elapsed : 0
        let eta = fraction > 0.001 ? elapsed * (1 - fraction) / fraction : .nan
        var line = String(
            format: "%@: %5.1f%%  %d/%d %@  %.0f MP/s  elapsed %@  ETA %@", label, fraction * 100, done, total, unit, rate,
            Self.clock(elapsed), eta.isFinite ? Self.clock(eta) : "--:--")
        if !extra.isEmpty { line += "  " + extra }
        if isTerminal {
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
            drewLive = true
        } else {
            StandardError.print(line)
        }
    }

    /// Ends the live line so that later output starts on a fresh line.
    func finish() {
        if drewLive { FileHandle.standardError.write(Data("\n".utf8)) }
        drewLive = false
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
