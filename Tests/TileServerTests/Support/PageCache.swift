import Foundation
import Glibc
import TestSupport

/// Asks the kernel to drop `path`'s pages from the page cache; returns whether its first page is still resident.
func dropFromPageCache(_ path: String) throws -> Bool {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw POSIXError(.ENOENT) }
    defer { close(descriptor) }
    fdatasync(descriptor)
    posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
    return firstPageIsResident(descriptor)
}

/// Whether `path`'s first page is in the page cache now (nothing is read).
func firstPageIsResident(_ path: String) throws -> Bool {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw POSIXError(.ENOENT) }
    defer { close(descriptor) }
    return firstPageIsResident(descriptor)
}

private func firstPageIsResident(_ descriptor: Int32) -> Bool {
    guard let mapping = mmap(nil, 1000, PROT_READ, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED else { return true }
    defer { munmap(mapping, 1000) }
    var residency: UInt8 = 0
    guard mincore(mapping, 1000, &residency) == 0 else { return true }
    return residency & 1 == 1
}

/// Whether the file system the test fixtures live on lets a file's pages be dropped from the page cache (tmpfs does
/// not: its pages are the file), probed once with a file of its own.
let fixturePagesCanBeDropped: Bool = {
    guard let folder = try? TemporaryDirectory(prefix: "page-cache-probe"),
        let path = try? folder.write(Array(repeating: 7, count: 8192), to: "probe")
    else { return false }
    return (try? dropFromPageCache(path)) == false
}()

extension PyramidFixture {
    /// Waits until every file under ROOT is written back to the disk. Just-written pages under writeback are locked,
    /// and a read that must not wait (`RWF_NOWAIT`) is refused them: on a machine busy writing, tests that count which
    /// misses were sent from their files would otherwise see one read into the cache instead now and then.
    func writeBack() {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return }
        for case let relative as String in walker {
            let descriptor = open(root + "/" + relative, O_RDONLY)
            guard descriptor >= 0 else { continue }
            fdatasync(descriptor)
            close(descriptor)
        }
    }
}

/// Reads `path` through, so that its pages are in the page cache now. Tests that count misses sent from their files or
/// read on an event loop ask for a tile right after this: the page cache is the machine's, and in a long test run
/// other processes (a storage gateway, a build) can evict a fixture written minutes before.
func makeResident(_ path: String) {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
}

extension PyramidFixture {
    /// The URL of tile (`column`, `row`) of level 11 of ``bigPyramidFixture()``, its file read into the page cache
    /// just before (``makeResident(_:)``).
    func residentBigTile(_ column: Int, _ row: Int) -> String {
        makeResident(root + "/big_files/11/\(column)_\(row).jpg")
        return bigTile(column, row)
    }
}
