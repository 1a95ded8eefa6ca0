import CFileIO
import Glibc

/// Reading a file's bytes whole with `pread`, for the tile loaders and for file bodies sent over TLS.
package enum FileReads {
    /// How a read went.
    package enum Outcome { case complete, wouldBlock, shortOrFailed }

    /// Reads `size` bytes at `offset` of `descriptor` into `destination`, retrying after signals; with
    /// `pageCacheOnly`, stops with ``Outcome/wouldBlock`` rather than wait for the disk (`RWF_NOWAIT`). Returns the
    /// bytes read and how it went: short when the file ended (it changed) or a read failed.
    ///
    /// - Complexity: O(`size`); one system call for bytes in the page cache.
    package static func readFully(_ descriptor: Int32, into destination: UnsafeMutableRawPointer, at offset: Int, size: Int, pageCacheOnly: Bool)
        -> (Int, Outcome)
    {
        var done = 0
        while done < size {
            let count =
                pageCacheOnly
                ? tiler_pread_cached(descriptor, destination + done, size - done, off_t(offset + done))
                : pread(descriptor, destination + done, size - done, off_t(offset + done))
            if count < 0 && errno == EINTR { continue }
            if count < 0 && pageCacheOnly { return (done, .wouldBlock) }  // EAGAIN, or no RWF_NOWAIT here
            guard count > 0 else { return (done, .shortOrFailed) }
            done += count
        }
        return (done, .complete)
    }
}
