import Foundation

/// A private folder in the system temporary folder (`TMPDIR`), mode 0700, removed by ``remove()``.
struct StagingFolder {
    let path: String

    /// Creates `tiler-slice-XXXXXX` in the temporary folder.
    static func create() throws -> StagingFolder {
        let template = (NSTemporaryDirectory() as NSString).appendingPathComponent("tiler-slice-XXXXXX")
        var bytes = Array(template.utf8CString)
        guard let made = bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CommandFailure("cannot create a staging folder in \(NSTemporaryDirectory()): \(String(cString: strerror(errno)))")
        }
        return StagingFolder(path: String(cString: made))
    }

    /// Removes the folder and all it holds.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
