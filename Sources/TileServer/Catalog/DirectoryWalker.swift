import Glibc

/// Finds `*.dzi` files under a folder with `opendir`/`readdir`, the way the catalog wants:
/// dot-files and dot-folders are skipped (so a slice being written into `.NAME.tiler-XXXX/` is never seen),
/// `*_files` folders are not entered (they hold the tiles, thousands of files), symlinked folders are not
/// followed (no cycles), and the depth is bounded.
enum DirectoryWalker {
    /// A descriptor found: its name (relative path without `.dzi`, `/`-separated) and its path.
    struct Found: Sendable {
        let name: String
        let path: String
    }

    /// Every `*.dzi` at most `maxDepth` folders below `root`, in no particular order.
    static func descriptors(under root: String, maxDepth: Int) -> [Found] {
        var found: [Found] = []
        walk(root, relative: "", depth: 0, maxDepth: maxDepth, into: &found)
        return found
    }

    private static func walk(_ directory: String, relative: String, depth: Int, maxDepth: Int, into found: inout [Found]) {
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard let name = String(validating: bytes, as: UTF8.self), !name.hasPrefix(".") else { continue }
            let path = directory + "/" + name
            let child = relative.isEmpty ? name : relative + "/" + name
            switch kind(of: entry.pointee.d_type, path: path) {
            case .directory:
                if depth < maxDepth && !name.hasSuffix("_files") {
                    walk(path, relative: child, depth: depth + 1, maxDepth: maxDepth, into: &found)
                }
            case .fileOrLink:
                if name.hasSuffix(".dzi") && name.utf8.count > 4 {
                    found.append(Found(name: String(child.dropLast(4)), path: path))
                }
            case .other:
                break
            }
        }
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
