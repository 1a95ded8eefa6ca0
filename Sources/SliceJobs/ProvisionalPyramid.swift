import TileGeometry

/// A pyramid being built by a job, served from its staging folder while it fills (the drop contract's provisional
/// version): the final pyramid's geometry, a version of its own, and where the tiles appear. Every answer from it is
/// `no-store`; a tile not written yet is 404 with `Retry-After: 1`. A JPEG's coarse levels are there first (see
/// ``JobQueue``'s coarse step); the full build's tiles replace them as they appear. It is withdrawn before the final pyramid's job
/// says `done` (its URLs then answer 404).
package struct ProvisionalPyramid: Sendable {
    package let job: SliceJob
    /// 12 random lowercase hex digits (the shape of a catalog version, so URLs parse the same way).
    package let version: String
    /// Where tiles are looked for, in order: the staging folder's `NAME_files` of the full build (once it has
    /// started), then a JPEG's coarse pyramid (its levels up to about 4096 px across, from a DCT-scaled decode).
    package var filesPaths: [String]
    /// The final pyramid's geometry and tile format.
    package let descriptor: DZIDescriptor
    package let pyramid: Pyramid

    /// The versioned descriptor URL.
    package var dzi: String { "/images/\(job.name)@\(version).dzi" }

    /// A new provisional version.
    package static func newVersion() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<12).map { _ in "0123456789abcdef".randomElement(using: &generator)! })
    }
}
