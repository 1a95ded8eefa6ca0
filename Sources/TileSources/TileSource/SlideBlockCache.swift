import ImageCodecs
import TileCache

/// Decoded 256-pixel blocks of the slide levels read without OpenSlide (``RestartJPEGGrid``), shared by every slide:
/// what OpenSlide's own tile cache (32 MiB a handle in OpenSlide 3.4) is to the levels it reads, so a VMS's JPEG levels
/// keep one. A region is assembled from the blocks under it, each decoded once while it stays cached: a tile and the
/// coarser tiles halved from the same pixels, or an IIIF region over them, decode the JPEG data once.
///
/// Blocks lie on a 256-pixel grid of their level (clipped at its edges), so a tile on the Deep Zoom grid is one block.
/// Keys carry the slide's id (``SlidePyramid``), new for every opening of a changed file, so a changed slide's blocks
/// are never read again and age out. Thread-safe; a block being decoded by two threads at once is decoded twice.
package final class SlideBlockCache: Sendable {
    /// Which block: a slide, one of its OpenSlide levels, a column and row of 256-pixel blocks.
    package struct Key: Hashable, Sendable {
        package let slide: Int
        package let level: Int
        package let column: Int
        package let row: Int
    }

    /// The side of a block in pixels.
    package static let side = 256
    /// The cache the server uses: 32 MiB of RGB (170 blocks), OpenSlide 3.4's cache size.
    package static let shared = SlideBlockCache(budget: 32 << 20)

    package let blocks: ConcurrentLRUCache<Key, PixelBuffer>

    /// An empty cache of at most `budget` bytes of pixels.
    package init(budget: Int) {
        blocks = ConcurrentLRUCache(budget: budget)
    }

    /// The RGB pixels of `x0..<x1` × `y0..<y1` of level `level` (`width` × `height`) of slide `slide`, what lies outside
    /// the level `background`; blocks not cached are read with `read` (x, y, width, height within the level) and
    /// cached. Nil when `read` gives nil (the caller reads the region another way).
    ///
    /// - Complexity: one `read` per block not cached; O(region pixels) copying unless the region is one whole block.
    package func region(
        slide: Int, level: Int, size: (width: Int, height: Int), x0: Int, y0: Int, x1: Int, y1: Int,
        background: (red: UInt8, green: UInt8, blue: UInt8), read: (Int, Int, Int, Int) throws -> PixelBuffer?
    ) throws -> PixelBuffer? {
        let side = Self.side
        let cx0 = max(0, x0)
        let cy0 = max(0, y0)
        let cx1 = min(size.width, x1)
        let cy1 = min(size.height, y1)
        guard cx0 < cx1 && cy0 < cy1 else { return nil }
        func block(_ column: Int, _ row: Int) throws -> PixelBuffer? {
            let key = Key(slide: slide, level: level, column: column, row: row)
            if let cached = blocks.value(for: key) { return cached }
            let width = min(side, size.width - column * side)
            let height = min(side, size.height - row * side)
            guard let pixels = try read(column * side, row * side, width, height) else { return nil }
            _ = blocks.insert(pixels, for: key, cost: pixels.bytes.count)
            return pixels
        }
        // One whole block: as it is.
        if x0 % side == 0, y0 % side == 0, x1 - x0 <= side, y1 - y0 <= side, x0 == cx0, y0 == cy0,
            x1 == min(size.width, x0 + side), y1 == min(size.height, y0 + side)
        {
            return try block(x0 / side, y0 / side)
        }
        let width = x1 - x0
        let height = y1 - y0
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        if cx0 != x0 || cy0 != y0 || cx1 != x1 || cy1 != y1 {
            for i in 0..<(width * height) {
                bytes[3 * i] = background.red
                bytes[3 * i + 1] = background.green
                bytes[3 * i + 2] = background.blue
            }
        }
        for row in (cy0 / side)...((cy1 - 1) / side) {
            for column in (cx0 / side)...((cx1 - 1) / side) {
                guard let pixels = try block(column, row) else { return nil }
                let left = max(cx0, column * side)
                let right = min(cx1, column * side + pixels.width)
                let top = max(cy0, row * side)
                let bottom = min(cy1, row * side + pixels.height)
                pixels.bytes.withUnsafeBytes { source in
                    bytes.withUnsafeMutableBytes { target in
                        for y in top..<bottom {
                            let from = ((y - row * side) * pixels.width + (left - column * side)) * 3
                            let to = ((y - y0) * width + (left - x0)) * 3
                            target.baseAddress!.advanced(by: to).copyMemory(
                                from: source.baseAddress!.advanced(by: from), byteCount: (right - left) * 3)
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, pixelFormat: .rgb, bytes: bytes)
    }
}
