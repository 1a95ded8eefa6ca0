import Foundation

/// The `-o` folder of a slice: created with its missing parents, and removed again (only the folders this run
/// created, and only while empty) when the slice fails, so a failure leaves no trace.
struct OutputFolder {
    /// Folders this run created, deepest last.
    let created: [String]

    /// Creates `path` and any missing parents.
    static func create(_ path: String) throws -> OutputFolder {
        var missing: [String] = []
        var url = URL(fileURLWithPath: path).standardizedFileURL
        while !FileManager.default.fileExists(atPath: url.path) && url.path != "/" {
            missing.insert(url.path, at: 0)
            url = url.deletingLastPathComponent()
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create the output folder \(path): \((error as NSError).localizedDescription)")
        }
        return OutputFolder(created: missing)
    }

    /// Removes the folders this run created, deepest first; `rmdir` leaves any that are not empty.
    func removeIfCreated() {
        for folder in created.reversed() { rmdir(folder) }
    }
}
