import Glibc

/// Lists one folder with `opendir`/`readdir` the way the catalog wants: dot-files and dot-folders are skipped (so a
/// slice being written into `.NAME.tiler-XXXX/` is never seen), `*_files` folders are not offered for entering (they
/// hold the tiles, thousands of files), and symlinked folders are not offered either (no cycles). The recursion,
/// its depth bound and what is remembered between scans are ``CatalogScanner``'s.
enum DirectoryWalker {
    /// A descriptor found: its name (relative path without `.dzi`, `/`-separated) and its path.
    struct Found: Sendable {
        let name: String
        let path: String
    }

    /// What one folder holds that the catalog cares about.
    struct Listing {
        /// Its `*.dzi` files (regular files or symlinks).
        var descriptors: [Found] = []
        /// Names of its subfolders to walk into (not dot-folders, not `*_files`, not symlinks).
        var folders: [String] = []
    }

    /// Why a folder could not be listed.
    enum ListingError: Error {
        /// The process (`EMFILE`) or the system (`ENFILE`) is out of descriptors, or the kernel out of memory: the
        /// folder's contents are unknown, not empty.
        case outOfDescriptors
        /// Missing, not a folder, or not readable: it holds nothing the server can serve.
        case unreadable
    }

    /// Lists `directory` (a path), whose pyramids' names start with `relative` (`""` for ROOT). Blocking.
    ///
    /// - Complexity: O(entries), with one `lstat` per entry only on file systems that do not report entry types.
    static func list(_ directory: String, relative: String) throws(ListingError) -> Listing {
        guard let handle = opendir(directory) else {
            let code = errno
            throw code == EMFILE || code == ENFILE || code == ENOMEM ? .outOfDescriptors : .unreadable
        }
        defer { closedir(handle) }
        var listing = Listing()
        while let entry = readdir(handle) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard let name = String(validating: bytes, as: UTF8.self), !name.hasPrefix(".") else { continue }
            let path = directory + "/" + name
            switch kind(of: entry.pointee.d_type, path: path) {
            case .directory:
                if !name.hasSuffix("_files") { listing.folders.append(name) }
            case .fileOrLink:
                if name.hasSuffix(".dzi") && name.utf8.count > 4 {
                    let child = relative.isEmpty ? name : relative + "/" + name
                    listing.descriptors.append(Found(name: String(child.dropLast(4)), path: path))
                }
            case .other:
                break
            }
        }
        return listing
    }

    private enum Kind {
        case directory
        case fileOrLink
        case other
    }

    private static func kind(of type: UInt8, path: String) -> Kind {
        switch Int(type) {
        case Int(DT_DIR): return .directory
        case Int(DT_REG), Int(DT_LNK): return .fileOrLink
        case Int(DT_UNKNOWN):
            var status = stat()
            guard lstat(path, &status) == 0 else { return .other }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: return .directory
            case S_IFREG, S_IFLNK: return .fileOrLink
            default: return .other
            }
        default: return .other
        }
    }
}
