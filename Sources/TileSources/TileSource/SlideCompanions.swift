import Glibc

/// The files besides its main file that a multi-file slide is read from, and their identities when it was opened: a
/// Hamamatsu VMS or VMU names its JPEGs, map, macro and optimisation file in its key file; a MIRAX `.mrxs` keeps its
/// `Slidedat.ini`, `Index.dat` and data files in the folder of the same name beside it. OpenSlide opens these by name
/// on every read, so one replaced while served would be read as part of the slide first opened; comparing the
/// identities after a read tells it was not. Formats of one file have none.
package struct SlideCompanions: Sendable, Equatable {
    /// The companion files' paths and their identities (nil: missing when the slide was opened).
    package let files: [(path: String, signature: FileSignature?)]
    /// Whether the slide names a file by a path rather than a name beside it (`../x.jpg`, `/etc/x`): OpenSlide would
    /// open it wherever it leads, so such a slide is not served.
    package let namesOtherFolders: Bool
    /// Whether one of the files it is read from is there but not a regular file (a FIFO would hold OpenSlide's open(2)
    /// — and the scan — for ever), so the slide is not opened.
    package let hasIrregularFile: Bool

    /// The companions of the slide at `path` in OpenSlide format `vendor`, as they are now. Reads the key file of a
    /// VMS or VMU (at most 64 KiB, as OpenSlide) or lists a MIRAX folder. O(companions) stats.
    package init(path: String, vendor: String) {
        let paths: [String]
        // What OpenSlide may open besides the key file: what it names (VMS, VMU), a MIRAX folder's entries.
        let opened: [String]
        let lower = path.lowercased()
        if vendor == "hamamatsu" && (lower.hasSuffix(".vms") || lower.hasSuffix(".vmu")) {
            (paths, namesOtherFolders) = Self.keyFileCompanions(path)
            opened = paths
        } else if vendor == "mirax" {
            let folder = Self.miraxFolder(of: path)
            opened = Self.entryPaths(folder).filter { !FileSignature.isDirectory($0) }
            paths = opened.filter { FileSignature(path: $0) != nil }
            namesOtherFolders = Self.namesPaths(folder + "/Slidedat.ini", keys: ["FILE_", "INDEXFILE"])
        } else {
            paths = []
            opened = []
            namesOtherFolders = false
        }
        files = paths.map { ($0, FileSignature(path: $0)) }
        hasIrregularFile = opened.contains { Self.isIrregular($0) }
    }

    /// The key file extensions of slides read from several files (OpenSlide's Hamamatsu VMS and VMU, 3DHistech MIRAX).
    package static let multiFileSlideExtensions: Set<String> = ["vms", "vmu", "mrxs"]

    /// For a multi-file slide's key file at `path`: the identities of the regular files in its folder and (MIRAX) in
    /// the folder of its name, in name order; empty for any other file. One directory read and a `stat` per file. What a
    /// refusal of the slide is remembered with: restoring a missing companion changes it.
    package static func stamp(keyFile path: String) -> [FileSignature] {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/"),
            multiFileSlideExtensions.contains(path[path.index(after: dot)...].lowercased())
        else { return [] }
        var folders = [path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."]
        if path[path.index(after: dot)...].lowercased() == "mrxs" { folders.append(miraxFolder(of: path)) }
        return folders.flatMap { entryPaths($0).compactMap(FileSignature.init(path:)) }
    }

    /// The folder of a MIRAX slide's files: its key file's path without the extension.
    private static func miraxFolder(of path: String) -> String {
        String(path.dropLast(path.split(separator: "/").last.map { Self.extensionLength($0) } ?? 0))
    }

    /// Whether something is at `path` that is not a regular file (following symlinks).
    private static func isIrregular(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT != S_IFREG
    }

    /// The paths of the entries directly inside `folder` (not `.` and `..`), sorted by name; none when it cannot be
    /// listed. One directory read.
    private static func entryPaths(_ folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted().map { folder + "/" + $0 }
    }

    /// Whether every companion that exists is a file inside `root` (a real path; symlinks followed).
    package func areInside(root: String) -> Bool {
        files.allSatisfy { file in
            guard file.signature != nil else { return true }
            return PathContainment.realPath(file.path).map { PathContainment.isInside($0, root: root) } ?? false
        }
    }

    /// Whether every companion is still the file it was (or still missing). One stat per companion.
    package var areCurrent: Bool {
        files.allSatisfy { FileSignature(path: $0.path) == $0.signature }
    }

    /// Whether the companions at `paths` are still the files they were: one stat each (a path that is not a companion
    /// is not current).
    package func areCurrent(_ paths: [String]) -> Bool {
        paths.allSatisfy { path in
            guard let file = files.first(where: { $0.path == path }) else { return false }
            return FileSignature(path: path) == file.signature
        }
    }

    package static func == (left: SlideCompanions, right: SlideCompanions) -> Bool {
        left.files.count == right.files.count && zip(left.files, right.files).allSatisfy { $0.path == $1.path && $0.signature == $1.signature }
    }

    /// The keys of a VMS or VMU key file that name a file beside it.
    private static let keyFileKeys = ["ImageFile", "MapFile", "MacroImage", "OptimisationFile"]

    /// The files a VMS or VMU key file names (`ImageFile…`, `MapFile`, `MacroImage`, `OptimisationFile`), beside it,
    /// and whether it names one by a path instead.
    private static func keyFileCompanions(_ path: String) -> (paths: [String], namesOtherFolders: Bool) {
        guard let text = readSmallFile(path) else { return ([], false) }
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var names: [String] = []
        var other = false
        for (key, value) in settings(text) where keyFileKeys.contains(where: { key.hasPrefix($0) }) && !value.isEmpty {
            guard !isPath(value) else {
                other = true
                continue
            }
            names.append(folder + "/" + value)
        }
        return (names, other)
    }

    /// Whether the settings file at `path` gives a value that is a path (not a plain name) for a key starting with one
    /// of `keys`.
    private static func namesPaths(_ path: String, keys: [String]) -> Bool {
        guard let text = readSmallFile(path) else { return false }
        return settings(text).contains { key, value in keys.contains { key.hasPrefix($0) } && isPath(value) }
    }

    /// Whether a file name from a slide's settings is a path: a separator, or `..` or `.` itself.
    private static func isPath(_ value: Substring) -> Bool {
        value.contains("/") || value.contains("\\") || value == ".." || value == "."
    }

    /// The `key = value` lines of an INI-like text, trimmed.
    private static func settings(_ text: String) -> [(key: Substring, value: Substring)] {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).compactMap { line in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return (line[..<equals].trimmingSpaces, line[line.index(after: equals)...].trimmingSpaces)
        }
    }

    /// The length of `name`'s extension with its dot (0 when it has none).
    private static func extensionLength(_ name: Substring) -> Int {
        guard let dot = name.lastIndex(of: ".") else { return 0 }
        return name.distance(from: dot, to: name.endIndex)
    }

    /// The first 64 KiB of the file at `path` as text.
    private static func readSmallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64 << 10)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: bytes.prefix(count), as: UTF8.self)
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
