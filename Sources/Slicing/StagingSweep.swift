import Foundation

/// Removes the staging folders that slices killed mid-way (`kill -9`, a crash, a power cut) left in an output folder.
///
/// A staging folder is a folder named `.NAME.tiler-XXXXXX`, of any pyramid name. One with an owner file (`.owner`:
/// PID, process start time, host, boot, PID namespace — written when the slice creates the folder) is removed when its process is gone from this host: its PID no longer exists, now belongs to a
/// process started at another time, or the host has restarted since. One owned by a process that runs, or made on
/// another host (or in another PID namespace), is left alone. One without a readable owner file, as earlier versions
/// made them, is removed once it has not changed for ``unownedAge`` seconds. Nothing is followed out of a folder
/// while removing it.
public enum StagingSweep {
    /// How long a staging folder without an owner file must have been unchanged to be removed: 24 hours, in seconds.
    public static let unownedAge: Double = 24 * 3600

    /// Removes the leftover staging folders in `directory`, returning one record per folder removed or failed.
    ///
    /// A folder that cannot be read is skipped: the slice that follows reports the problem itself.
    ///
    /// - Parameter interrupted: The name of a pyramid whose slice into `directory` is known to have died (a server's
    ///   job found unfinished at its next start): its staging folders without a readable owner file are removed at
    ///   once — a slice killed between creating its folder and writing the owner file leaves one so.
    public static func removeLeftovers(in directory: String, interrupted: String? = nil) -> [StagingLeftover] {
        removeLeftovers(in: directory, interrupted: interrupted, here: StagingOwner.current(), now: Date().timeIntervalSince1970)
    }

    /// ``removeLeftovers(in:interrupted:)`` seen from `here` at `now` (seconds since 1970), looking PIDs up with `probe`.
    static func removeLeftovers(
        in directory: String, interrupted: String? = nil, here: StagingOwner, now: Double,
        probe: (Int32) -> StagingOwner.Probe = StagingOwner.probe
    ) -> [StagingLeftover] {
        let parent = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { return [] }
        defer { close(parent) }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter(isStagingName).sorted()
        var leftovers: [StagingLeftover] = []
        for name in names {
            let folder = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else { continue }
            let isInterrupted = interrupted.map { name.hasPrefix(".\($0).tiler-") && name.utf8.count == $0.utf8.count + 14 } == true
            let unownedAge = isInterrupted ? 0 : Self.unownedAge
            let why = verdict(on: folder, here: here, now: now, unownedAge: unownedAge, probe: probe)
            close(folder)
            guard let why else { continue }
            let code = StagingFolder.remove(name, in: parent)
            leftovers.append(StagingLeftover(folder: name, why: why, failure: code.map { String(cString: strerror($0)) }))
        }
        return leftovers
    }

    /// Whether `name` is a staging folder's: `.NAME.tiler-` and `mkdtemp`'s six letters and digits.
    static func isStagingName(_ name: String) -> Bool {
        let suffix = name.utf8.suffix(6)
        let isAlphanumeric = { (c: UInt8) in (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) }
        return name.hasPrefix(".") && name.utf8.count >= 15 && suffix.allSatisfy(isAlphanumeric)
            && name.utf8.dropLast(6).reversed().starts(with: ".tiler-".utf8.reversed())
    }

    /// Why the staging folder open as `folder` is a leftover, or nil to keep it.
    private static func verdict(
        on folder: Int32, here: StagingOwner, now: Double, unownedAge: Double, probe: (Int32) -> StagingOwner.Probe
    ) -> String? {
        if let text = StagingOwner.readSmallFile(StagingOwner.fileName, in: folder), let owner = StagingOwner(parsing: text) {
            switch owner.standing(from: here, probe: probe) {
            case .alive, .elsewhere: return nil
            case .gone: return "left by process \(owner.pid) on this host, which is gone"
            case .goneBeforeRestart: return "left by process \(owner.pid) on this host before it restarted"
            }
        }
        var info = stat()
        guard fstat(folder, &info) == 0 else { return nil }
        let age = now - Double(info.st_mtim.tv_sec)
        guard age >= unownedAge else { return nil }
        if unownedAge == 0 { return "left by an interrupted slice before it recorded its owner" }
        let hours = Int(age / 3600)
        return "left by a slice with no owner recorded, unchanged for \(hours < 48 ? "\(hours) hours" : "\(hours / 24) days")"
    }
}
