import Glibc

/// Lists one folder with `opendir`/`readdir` the way the catalog wants: dot-files and dot-folders are skipped (so a
/// slice being written into `.NAME.tiler-XXXX/` is never seen), `*_files` folders are not offered for entering (they
/// hold the tiles, thousands of files), and symlinked folders are not offered either (no cycles). The recursion,
/// its depth bound and what is remembered between scans are ``CatalogScanner``'s.
package enum DirectoryWalker {
    /// A pyramid found: its name (relative path without `.dzi` or the file's extension, `/`-separated), its path,
    /// and what kind of file it is.
    package struct Found: Sendable {
        package let name: String
        package let path: String
        package var kind = PyramidKind.descriptor
    }

    /// What one folder holds that the catalog cares about.
    package struct Listing {
        /// Its `*.dzi` files (regular files or symlinks).
        package var descriptors: [Found] = []
        /// Names of its subfolders to walk into (not dot-folders, not `*_files`, not symlinks).
        package var folders: [String] = []
        /// Entries that could be pyramids or hold some but are not served, and why.
        package var refused: [Refused] = []
    }

    /// An entry left out for its name: ``list(_:relative:)`` says why.
    package struct Refused: Sendable {
        /// Its path relative to ROOT, as the file system spells it.
        package let path: String
        package let reason: String
    }

    /// Why a folder could not be listed.
    package enum ListingError: Error {
        /// The process (`EMFILE`) or the system (`ENFILE`) is out of descriptors, or the kernel out of memory: the
        /// folder's contents are unknown, not empty.
        case outOfDescriptors
        /// Missing, not a folder, or not readable: it holds nothing the server can serve.
        case unreadable
    }

    /// Lists `directory` (a path), whose pyramids' names start with `relative` (`""` for ROOT). Blocking.
    ///
    /// Names are compared as people read them (Unicode canonical equivalence, as Swift compares strings and as a
    /// URL typed in either form finds them): of two descriptors or two folders whose names differ only in their
    /// normalisation (`café` in NFC and in NFD), the one whose bytes sort first is taken and the other is refused.
    /// A name with a control character (C0, DEL, C1) or a bidirectional override is refused too: it could not be
    /// shown or logged as it is. Names that are not UTF-8 are skipped.
    ///
    /// - Complexity: O(entries), with one `lstat` per entry only on file systems that do not report entry types.
    package static func list(_ directory: String, relative: String) throws(ListingError) -> Listing {
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
            let child = relative.isEmpty ? name : relative + "/" + name
            switch kind(of: entry.pointee.d_type, path: path) {
            case .directory:
                guard !name.hasSuffix("_files") else { continue }
                if hasUnprintable(name) {
                    listing.refused.append(Refused(path: child, reason: "its name has a control character"))
                } else {
                    listing.folders.append(name)
                }
            case .fileOrLink:
                guard let (kind, stem) = PyramidKind.registered.lazy.compactMap({ kind in kind.stem(name).map { (kind, $0) } }).first else {
                    continue
                }
                if hasUnprintable(name) {
                    listing.refused.append(Refused(path: child, reason: "its name has a control character"))
                } else {
                    listing.descriptors.append(Found(name: relative.isEmpty ? String(stem) : relative + "/" + stem, path: path, kind: kind))
                }
            case .other:
                break
            }
        }
        listing.descriptors = preferringDescriptors(listing.descriptors, refused: &listing.refused)
        listing.descriptors = keepingOneOfEachName(listing.descriptors, name: \.name, refused: &listing.refused) { $0 + ".dzi" }
        let inRelative: (String) -> String = { relative.isEmpty ? $0 : relative + "/" + $0 }
        listing.folders = keepingOneOfEachName(listing.folders, name: { $0 }, refused: &listing.refused, path: inRelative)
        return listing
    }

    /// `found` without the files read in place whose name a `.dzi` pyramid (or another such file) already has: the
    /// `.dzi` wins, else the file whose bytes sort first; the others are refused (logged once).
    private static func preferringDescriptors(_ found: [Found], refused: inout [Refused]) -> [Found] {
        var descriptors = Set(found.lazy.filter { $0.kind == .descriptor }.map(\.name))
        // Sorted by kind, then by path: the first of each name is kept.
        var kept: [Found] = []
        for entry in found.sorted(by: {
            $0.kind.rank < $1.kind.rank || ($0.kind == $1.kind && $0.path.utf8.lexicographicallyPrecedes($1.path.utf8))
        }) {
            if entry.kind != .descriptor && !descriptors.insert(entry.name).inserted {
                let file = entry.path.split(separator: "/").last.map(String.init) ?? entry.path
                let folder = entry.name.split(separator: "/").dropLast().joined(separator: "/")
                refused.append(
                    Refused(
                        path: folder.isEmpty ? file : folder + "/" + file,
                        reason: "a pyramid named \(entry.name) is already served (a .dzi wins, then an .szi)"))
                continue
            }
            kept.append(entry)
        }
        return kept
    }

    /// Whether `name` holds a character that cannot be shown as it is: a control character or a bidirectional
    /// override or isolate.
    package static func hasUnprintable(_ name: String) -> Bool {
        name.unicodeScalars.contains {
            switch $0.value {
            case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
    }

    /// `entries` with one of each group of canonically equal names: the one whose UTF-8 bytes sort first (whatever
    /// order `readdir` gave), the others added to `refused` (their paths made by `path`).
    private static func keepingOneOfEachName<Entry>(
        _ entries: [Entry], name: (Entry) -> String, refused: inout [Refused], path: (String) -> String
    ) -> [Entry] {
        var chosen: [String: Int] = [:]
        var kept: [Entry] = []
        kept.reserveCapacity(entries.count)
        for entry in entries {
            let key = name(entry)
            guard let index = chosen[key] else {
                chosen[key] = kept.count
                kept.append(entry)
                continue
            }
            let other = kept[index]
            let (winner, loser) = name(entry).utf8.lexicographicallyPrecedes(name(other).utf8) ? (entry, other) : (other, entry)
            kept[index] = winner
            refused.append(
                Refused(path: path(name(loser)), reason: "its name differs from \(path(name(winner)))'s only in its Unicode normalisation"))
        }
        return kept
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
