import Glibc
import HTTPCore

extension OpenFile {
    /// Opens tile file `{column}_{row}.{format}` of the level folder open as `directory` (see ``LevelDirectories``)
    /// with `O_NOFOLLOW`, so it cannot leave that checked folder.
    ///
    /// - Returns: `nil` when the name is missing, is a symlink (the path-based load judges those), is not a regular
    ///   file or is larger than `maxBytes`, or no descriptor is left: the caller reads the tile the usual way, which
    ///   gives the right answer or error.
    package convenience init?(column: Int32, row: Int32, format: String.UTF8View, in directory: Int32, maxBytes: Int) {
        let descriptor = FileLoader.openTile(column: column, row: row, format: format, in: directory)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) <= maxBytes else {
            close(descriptor)
            return nil
        }
        self.init(
            descriptor: descriptor, offset: 0, size: Int(status.st_size), fileSize: Int(status.st_size), modified: status.st_mtim,
            tag: (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec)))
    }

    /// Reads the whole file into a ``LoadedFile`` (for the cache) from the open descriptor, waiting for the disk if
    /// need be: for file threads, which are handed the file a miss opened rather than opening it again. Its size and
    /// time are those checked by the last ``isCurrent``.
    package func read() throws(FileLoadError) -> LoadedFile {
        // Without pageCacheOnly the read never gives up for want of memory: nil cannot come back.
        try read(pageCacheOnly: false)!
    }

    /// Reads the whole file into a ``LoadedFile`` (for the cache) from the open descriptor, without waiting for the
    /// disk; `nil` if that would wait. Its size and time are those checked by the last ``isCurrent`` (no `fstat`).
    package func readIfCached() throws(FileLoadError) -> LoadedFile? {
        try read(pageCacheOnly: true)
    }

    private func read(pageCacheOnly: Bool) throws(FileLoadError) -> LoadedFile? {
        guard let etagText else {
            return try FileLoader.readRegion(
                descriptor, offset: offset, size: size, head: head, etagLineLength: etagLineLength, pageCacheOnly: pageCacheOnly)
        }
        return try FileLoader.readRegion(
            descriptor, offset: offset, size: size - prefix.readableBytes, after: prefix, etag: etagText, pageCacheOnly: pageCacheOnly)
    }
}
