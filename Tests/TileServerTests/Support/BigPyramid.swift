/// A 2048² pyramid named `big` of 256-px tiles: level 11 is 8×8 tiles of 1000 bytes (about 1060 bytes cached
/// each), for the cache and file-sending tests.
func bigPyramidFixture() throws -> PyramidFixture {
    let fixture = try PyramidFixture()
    try fixture.addPyramid("big", width: 2048, height: 2048, tileBytes: 1000)
    fixture.writeBack()
    return fixture
}

/// The URL of tile (`column`, `row`) of level 11 of ``bigPyramidFixture()``.
func bigTile(_ column: Int, _ row: Int) -> String { "/images/big_files/11/\(column)_\(row).jpg" }
