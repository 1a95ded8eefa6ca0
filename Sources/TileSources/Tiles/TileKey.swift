import TileCache

/// The cache key of one tile: the catalog's id for the image (never reused, so a re-sliced or removed image's
/// tiles can never be served again) and the tile's address.
package struct TileKey: Hashable, Sendable {
    /// ``CatalogImage/id``.
    package let image: Int
    /// The level.
    package let level: Int32
    /// The column.
    package let column: Int32
    /// The row.
    package let row: Int32

    /// The key of tile `address` of image `image`.
    ///
    /// - Precondition: the address fits the image's pyramid (so its numbers fit in 32 bits).
    package init(image: Int, address: TileAddress) {
        self.image = image
        self.level = Int32(address.level)
        self.column = Int32(address.column)
        self.row = Int32(address.row)
    }

    /// The tile's address.
    package var address: TileAddress { TileAddress(level: Int(level), column: Int(column), row: Int(row)) }

    /// One 64-bit word for the address instead of three: a visible-rect query hashes ~150 keys under the cache's
    /// lock. (Columns or rows of 2²⁴ and more would merely share hashes; equality compares every field.)
    package func hash(into hasher: inout Hasher) {
        hasher.combine(image)
        hasher.combine(UInt64(UInt32(bitPattern: level)) << 48 ^ UInt64(UInt32(bitPattern: column)) << 24 ^ UInt64(UInt32(bitPattern: row)))
    }
}

extension TileKey: SketchHashable {
    /// The image and the packed address through a 64-bit finaliser (MurmurHash3's `fmix64`): every input bit
    /// reaches every output bit, for about 10 instructions.
    package var sketchHash: UInt64 {
        var value = UInt64(bitPattern: Int64(image)) &* 0x9E37_79B9_7F4A_7C15
        value ^= UInt64(UInt32(bitPattern: level)) << 48 ^ UInt64(UInt32(bitPattern: column)) << 24 ^ UInt64(UInt32(bitPattern: row))
        value ^= value >> 33
        value &*= 0xFF51_AFD7_ED55_8CCD
        value ^= value >> 33
        value &*= 0xC4CE_B9FE_1A85_EC53
        return value ^ value >> 33
    }
}
