import Foundation

/// Deletes a folder and everything in it without ever following a symbolic link.
///
/// Every folder is opened relative to its parent's descriptor with `O_DIRECTORY | O_NOFOLLOW` and every entry removed
/// with `unlinkat`, so a link inside the tree is removed as a link, and a folder swapped for a link while the removal
/// runs is not entered: nothing outside the tree is ever touched.
enum TreeRemoval {
    /// Folders nested deeper than this are not entered (a staging folder is three deep); the removal then fails.
    static let maxDepth = 64

    /// Removes the entry `name` of the folder open as `parent` and everything below it.
    ///
    /// - Returns: nil when it is gone, else the first `errno` met.
    static func remove(_ name: [CChar], in parent: Int32, depth: Int) -> Int32? {
        // Most entries are tiles: one unlink each. A folder answers EISDIR (POSIX allows EPERM).
        if unlinkat(parent, name, 0) == 0 || errno == ENOENT { return nil }
        let refused = errno
        guard refused == EISDIR || refused == EPERM else { return refused }
        let folder = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return errno == ENOENT ? nil : refused }
        let inner = removeContents(of: folder, depth: depth + 1)
        close(folder)
        if unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT { return nil }
        return inner ?? errno
    }

    /// Removes everything inside the folder open as `folder` (which stays open) but the entry `kept`.
    ///
    /// - Returns: nil when that is done, else the first `errno` met.
    static func removeContents(of folder: Int32, depth: Int, keeping kept: String? = nil) -> Int32? {
        guard depth <= maxDepth else { return ELOOP }
        // The names are read first: unlinking while reading can make some file systems skip entries.
        var names: [[CChar]] = []
        if let code = entries(of: folder, into: &names) { return code }
        var first: Int32?
        let kept = kept.map { Array($0.utf8CString) }
        for name in names where name != kept {
            if let code = remove(name, in: folder, depth: depth), first == nil { first = code }
        }
        return first
    }

    /// Appends the names in the folder open as `folder`, without `.` and `..`, each NUL-terminated, to `names`.
    ///
    /// - Returns: nil, or the `errno` when the folder cannot be read.
    private static func entries(of folder: Int32, into names: inout [[CChar]]) -> Int32? {
        let copy = dup(folder)
        guard copy >= 0 else { return errno }
        guard let handle = fdopendir(copy) else {
            let code = errno
            close(copy)
            return code
        }
        defer { closedir(handle) }
        // fdopendir shares the position with `folder`; start from the top whatever was read before.
        rewinddir(handle)
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in Array(bytes.prefix { $0 != 0 }.map { CChar(bitPattern: $0) }) }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            names.append(name + [0])
        }
        return nil
    }
}
