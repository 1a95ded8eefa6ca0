import Synchronization

/// The files of pyramids stored in one file (``StoredPyramid``: a pyramidal TIFF, …; and SZIs, ``ArchiveTiles``) that
/// the server holds open, at most ``capacity`` of them whatever the size of the catalog — as ``LevelDirectoryCache``
/// bounds level folders. The catalog reads a file's levels (or an archive's index) when it finds it and closes it
/// again; the file is opened here on its first tile request and closed when it is the least recently used one and
/// another needs its place. So 10,000 pyramidal TIFFs or SZIs in ROOT cost no more descriptors than 10,000 folder
/// pyramids.
///
/// Pyramids are handed out as references: one evicted while another thread reads a tile from it is closed only when
/// that thread lets go of it (its descriptor cannot be reused under the read).
package final class StoredFileCache: Sendable {
    /// Set when a read found a file other than the one the catalog listed (rewritten in place, which a folder's time
    /// does not show): the next rescan then walks every folder, so the file is listed afresh within one rescan.
    private let changedFileSeen = Atomic<Bool>(false)

    /// One open file, as a reference the cache can hold.
    private final class Held: Sendable {
        package let pyramid: (any StoredPyramid)?
        package let archive: ArchiveFile?
        package init(_ pyramid: any StoredPyramid) {
            self.pyramid = pyramid
            self.archive = nil
        }
        package init(_ archive: ArchiveFile) {
            self.pyramid = nil
            self.archive = archive
        }
    }

    private let files: HeldOpenCache<Int, Held>

    /// Creates an empty cache holding at most `capacity` (≥ 0) files open.
    package init(capacity: Int) {
        files = HeldOpenCache(capacity: capacity)
    }

    /// Notes that a read found a file changed since the catalog listed it.
    package func noteChangedFile() { changedFileSeen.store(true, ordering: .relaxed) }

    /// Whether a read found a changed file since the last call (and clears it).
    package func takeChangedFile() -> Bool { changedFileSeen.exchange(false, ordering: .relaxed) }

    /// The most files held open at once (0: none; every tile request opens and closes its file).
    package var capacity: Int { files.capacity }

    /// The number of files open now. O(1), takes the lock.
    package var count: Int { files.count }

    /// How many files have been opened and kept so far.
    package var openCount: Int { files.openCount }

    /// The open pyramid of catalog entry `image`: from the cache, marked most recently used, or opened now with `open`
    /// and kept (evicting the least recently used file when full).
    ///
    /// - Throws: what `open` throws; nothing is kept then.
    /// - Complexity: O(1) (one lock) on a hit; on a miss also `open`, run outside the lock.
    package func pyramid<E: Error>(image: Int, open: () throws(E) -> any StoredPyramid) throws(E) -> any StoredPyramid {
        // `open` never gives nil, so neither does the cache.
        try files.value(for: image) { () throws(E) -> Held? in Held(try open()) }!.pyramid!
    }

    /// The open archive of catalog entry `image` (an SZI): from the cache, marked most recently used, or opened now
    /// with `open` and kept (evicting the least recently used file when full).
    ///
    /// - Throws: what `open` throws; nothing is kept then.
    /// - Complexity: O(1) (one lock) on a hit; on a miss also `open`, run outside the lock.
    package func archive<E: Error>(image: Int, open: () throws(E) -> ArchiveFile) throws(E) -> ArchiveFile {
        // An image's id names one source, so the entry under `image` is an archive when an archive asks for it.
        try files.value(for: image) { () throws(E) -> Held? in Held(try open()) }!.archive!
    }

    /// Closes (once unused) the files of the given images.
    ///
    /// - Complexity: O(n) in the files held.
    package func removeAll(images: Set<Int>) {
        guard !images.isEmpty else { return }
        files.removeAll { images.contains($0) }
    }
}
