import Glibc
import ImageCodecs
import Testing

@testable import TileServer

/// A VMS's JPEGs are read through a mapping made when each is indexed (``RestartJPEGGrid``): a JPEG truncated in place
/// under a served slide makes a read of its vanished pages raise SIGBUS, which must fail that read alone — a clean
/// error — and never take the server down.
@Suite struct SlideTruncationTests {
    @Test func aJPEGTruncatedInPlaceWhileServedIsAnErrorNotACrash() async throws {
        try await SlideTests.withServer { connection, fixture in
            let pyramid = try #require(SlideTests.slide(connection, "vms/slide"))
            let grid = try #require(pyramid.jpegGrid)
            let white = (red: UInt8(255), green: UInt8(255), blue: UInt8(255))
            // A region inside JPEG (1,1): read once, so that JPEG is indexed and mapped.
            let (x, y) = (grid.jpegWidth + 16, grid.jpegHeight + 8)
            let before = try #require(try grid.rgb(level: 0, x: x, y: y, width: 64, height: 64, background: white))
            #expect(before.width == 64)
            #expect(truncate(fixture.root + "/vms/slide(1,1).jpg", 600) == 0)
            // The mapped pages past the new end fault, and the read fails.
            let outcome = Result { () throws(SlideError) in try grid.rgb(level: 0, x: x, y: y, width: 64, height: 64, background: white) }
            guard case .failure(let error) = outcome else {
                Issue.record("a region of a truncated JPEG was read")
                return
            }
            #expect(error.kind == .damaged && error.reason.contains("shorter than when it was indexed"), "\(error)")
            // Served: that JPEG's tiles are an error, the server and its other images are as they were.
            let tile = "/images/vms/slide_files/10/\((grid.jpegWidth + 16) / 256)_\((grid.jpegHeight + 8) / 256).jpg"
            #expect(try await SlideTests.get(connection, tile).status == 500)
            #expect(try await SlideTests.get(connection, "/images/small_files/4/0_0.jpg").status == 200)
        }
    }
}
