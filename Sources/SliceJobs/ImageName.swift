/// The rule an uploaded or inbox image's name must meet to become files under ROOT: `/`-separated segments of
/// 1–200 letters, digits, `-`, `_`, `.` or `+`, none starting with `.` (hidden: never scanned) or ending in `_files`
/// (a pyramid's tile folder), at most `maxDepth + 1` segments (the catalog's scan depth).
package enum ImageName {
    /// The bytes a segment may hold (as `tiler slice --name` allows).
    private static let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.+".utf8)

    /// Why `name` cannot be an image's name (one line), or nil when it can. O(n).
    package static func problem(_ name: Substring, maxDepth: Int) -> String? {
        let segments = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, segments.count <= maxDepth + 1 else {
            return "an image name is 1 to \(maxDepth + 1) segments separated by '/'"
        }
        for segment in segments {
            guard !segment.isEmpty, segment.utf8.count <= 200, segment.utf8.allSatisfy(allowed.contains), !segment.hasPrefix("."),
                !segment.hasSuffix("_files")
            else {
                return
                    "image name \"\(name)\": each segment must be 1–200 letters, digits, '-', '_', '.' or '+', not starting with '.' nor ending in _files"
            }
        }
        return nil
    }

    /// The folder (below ROOT, empty for ROOT itself) and the file stem of `name`.
    package static func split(_ name: String) -> (folder: String, stem: String) {
        guard let slash = name.lastIndex(of: "/") else { return ("", name) }
        return (String(name[..<slash]), String(name[name.index(after: slash)...]))
    }
}
