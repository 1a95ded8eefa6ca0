import Glibc

/// Finds the `*.dzi` files under ROOT scan after scan at a cost that grows with what changed, not with the catalog.
///
/// Each folder walked is remembered with its stamp (``FolderStamp``: device, inode, modification and change times)
/// and what it held. A folder whose stamp is unchanged is not listed again: its descriptors are taken as they were
/// (adding, removing or renaming a `.dzi` or a `{name}_files` folder in it changes its modification time), and only
/// its subfolders are checked, one `lstat` each. A folder modified less than a second before the scan began is listed
/// again next time, since a change made in the same clock tick could leave its time unchanged. Every
/// ``fullWalkEvery``-th scan lists every folder, which catches what no folder time shows (a `.dzi` rewritten in
/// place, a symlink's target changed).
///
/// The walk itself is ``DirectoryWalker``'s (dot-folders skipped, `_files` folders and symlinked folders not
/// entered), at most ``maxDepth`` folders below ROOT. Not thread-safe: the catalog runs one scan at a time.
package final class CatalogScanner {
    /// What a scan found to look at.
    package struct Changes {
        /// The descriptors of every folder listed in this scan (new or changed folders; all of them on a full walk):
        /// the catalog looks at each again. Descriptors of unchanged folders are not here.
        package var listed: [DirectoryWalker.Found] = []
        /// Names of descriptors no longer there (their folder changed without them, or is gone).
        package var vanished: [String] = []
        /// Whether this scan listed every folder.
        package var fullWalk = false
        /// Entries of the folders listed that are refused for their names (see ``DirectoryWalker/list(_:relative:)``).
        package var refused: [DirectoryWalker.Refused] = []
    }

    /// What one scan looked at, for tests and logs.
    package struct Counts: Equatable, Sendable {
        /// Folders found unchanged by their stamp (one `lstat` each) and not listed.
        package var foldersChecked = 0
        /// Folders listed (`opendir`, `readdir`).
        package var foldersListed = 0
    }

    /// ROOT (a real path).
    package let root: String
    /// How deep below ROOT descriptors are looked for (0: ROOT only).
    package let maxDepth: Int
    /// Every this many scans (≥ 1), the scan lists every folder; the first scan always does.
    package let fullWalkEvery: Int
    /// What the last scan that finished looked at.
    package private(set) var lastCounts = Counts()
    private var folders: [String: Folder] = [:]
    private var scans = 0

    /// Lists one folder: its path and its pyramids' name prefix (``DirectoryWalker/list(_:relative:)``, or a stand-in
    /// in tests).
    package typealias Lister = @Sendable (String, String) throws(DirectoryWalker.ListingError) -> DirectoryWalker.Listing

    private let list: Lister

    /// Creates a scanner of `root` (a real path) that has seen nothing yet and lists folders with `list`.
    package init(root: String, maxDepth: Int, fullWalkEvery: Int, list: @escaping Lister = DirectoryWalker.list) {
        precondition(fullWalkEvery >= 1, "fullWalkEvery must be ≥ 1")
        self.root = root
        self.maxDepth = maxDepth
        self.fullWalkEvery = fullWalkEvery
        self.list = list
    }

    /// Walks ROOT and returns what to look at: every folder when `full` (and every `fullWalkEvery`-th scan), else the
    /// folders whose stamp moved. Blocking.
    ///
    /// - Throws: ``DirectoryWalker/ListingError/outOfDescriptors`` when a folder could not be opened for lack of
    ///   descriptors: the scan is abandoned and nothing is remembered from it (the next scan starts from the last
    ///   complete one), so the caller keeps its catalog as it was.
    /// - Complexity: one `lstat` per folder, plus O(entries) for each folder listed.
    package func scan(full: Bool = false) throws(DirectoryWalker.ListingError) -> Changes {
        var walk = Walk(
            previous: folders, maxDepth: maxDepth, full: full || scans % fullWalkEvery == 0, recentSince: Self.coarseNow() - 1_000_000_000, list: list
        )
        try walk.visit(relative: "", path: root, depth: 0)
        for (relative, folder) in folders where walk.next[relative] == nil {
            walk.changes.vanished += folder.descriptors.map(\.name)
        }
        folders = walk.next
        scans += 1
        lastCounts = walk.counts
        return walk.changes
    }

    /// The realtime clock as file times are stamped (the coarse clock), in nanoseconds.
    private static func coarseNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// A folder as last listed.
    fileprivate struct Folder {
        package var stamp: FolderStamp
        package var descriptors: [DirectoryWalker.Found]
        /// The subfolders to walk (none at the depth limit).
        package var folders: [String]
        /// Modified too recently to trust its stamp: listed again next scan.
        package var recent: Bool
    }

    /// One scan in progress: the previous state read, the next one built.
    private struct Walk {
        package let previous: [String: Folder]
        package let maxDepth: Int
        package let full: Bool
        package let recentSince: Int64
        package let list: Lister
        package var next: [String: Folder] = [:]
        package var changes = Changes()
        package var counts = Counts()

        package init(previous: [String: Folder], maxDepth: Int, full: Bool, recentSince: Int64, list: @escaping Lister) {
            self.previous = previous
            self.list = list
            self.maxDepth = maxDepth
            self.full = full
            self.recentSince = recentSince
            changes.fullWalk = full
        }

        package mutating func visit(relative: String, path: String, depth: Int) throws(DirectoryWalker.ListingError) {
            // A folder gone (or turned into something else) is left out of `next`: the sweep reports its pyramids.
            guard let stamp = FolderStamp(path: path) else { return }
            if !full, let old = previous[relative], old.stamp == stamp, !old.recent {
                counts.foldersChecked += 1
                next[relative] = old
                try visitFolders(old.folders, of: relative, path: path, depth: depth)
                return
            }
            let listing: DirectoryWalker.Listing
            do {
                listing = try list(path, relative)
            } catch {
                if error == .outOfDescriptors { throw error }
                return
            }
            counts.foldersListed += 1
            if let old = previous[relative] {
                let names = Set(listing.descriptors.map(\.name))
                changes.vanished += old.descriptors.lazy.map(\.name).filter { !names.contains($0) }
            }
            changes.listed += listing.descriptors
            changes.refused += listing.refused
            let folders = depth < maxDepth ? listing.folders : []
            if depth >= maxDepth {
                // Said once (the catalog remembers what it reported), so a pyramid too deep is not left out in silence.
                changes.refused += listing.folders.map { name in
                    DirectoryWalker.Refused(
                        path: relative.isEmpty ? name : relative + "/" + name, reason: "folders deeper than \(maxDepth) below ROOT are not scanned")
                }
            }
            next[relative] = Folder(stamp: stamp, descriptors: listing.descriptors, folders: folders, recent: stamp.modified >= recentSince)
            try visitFolders(folders, of: relative, path: path, depth: depth)
        }

        private mutating func visitFolders(_ names: [String], of relative: String, path: String, depth: Int) throws(DirectoryWalker.ListingError) {
            for name in names {
                try visit(relative: relative.isEmpty ? name : relative + "/" + name, path: path + "/" + name, depth: depth + 1)
            }
        }
    }
}
