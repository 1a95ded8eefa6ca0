import Foundation
import ImageCodecs
import NIOCore
import ObjectStore
import ObjectStoreTestSupport
import Testing
import TileGeometry

@testable import TileServer
@testable import TileSources

/// Pyramidal TIFFs in a bucket of a real Ceph RADOS Gateway, served by `tiler serve` exactly as the same files under
/// ROOT by the same server: listed under their keys without the extension, the same descriptors, every tile byte for
/// byte (stored JPEG tiles passed through, the others made from the stored pixels), IIIF, the visible-rect query and
/// the facts read from the TIFF; an Aperio SVS's tiles and facts but not OpenSlide's associated images; and one TIFF
/// on a plain HTTP server that answers ranges.
@Suite(.serialized) struct ObjectStoreTIFFTests {
    /// Every tile of `levels` of `local` and `remote`, both 200 and byte for byte the same.
    private func expectSameTiles(_ server: Server, _ local: String, _ remote: String, levels: [Int], format: String = "jpg") throws {
        let descriptor = try DZIDescriptor(xml: try fetch(server, "/images/\(local).dzi").text)
        for level in levels {
            let grid = descriptor.pyramid.grid(level)
            for row in 0..<grid.rows {
                for column in 0..<grid.columns {
                    let path = "_files/\(level)/\(column)_\(row).\(format)"
                    let (mine, theirs) = (try fetch(server, "/images/\(local)\(path)"), try fetch(server, "/images/\(remote)\(path)"))
                    #expect(mine.status == 200 && theirs.status == 200, "\(remote)\(path): \(theirs.status) \(theirs.text.prefix(200))")
                    #expect(mine.body == theirs.body, "\(remote)\(path)")
                }
            }
        }
    }

    @Test func aBucketsTIFFsAreServedAsTheSameFilesUnderROOT() async throws {
        let bucket = try await BucketTIFFFixture.make("tiff-serving")
        try await bucket.withServer(bucket.configuration()) { server in
            let list = try fetch(server, "/api/images").text
            for name in ["photo", "lossless", "sub", "cog"] {
                #expect(list.contains("\"name\":\"\(name)\"") && list.contains("\"name\":\"remote/\(name)\""), "\(name)")
                let (mine, theirs) = (try fetch(server, "/images/\(name).dzi"), try fetch(server, "/images/remote/\(name).dzi"))
                #expect(theirs.status == 200 && theirs.body == mine.body, "\(name)")
            }
            #expect(!list.contains("notes"))
            // The finest level passed through (photo, cog) or made from 512-pixel or Deflate tiles, one made from its
            // four finer tiles, and the coarsest.
            for name in ["photo", "lossless", "sub", "cog"] {
                try expectSameTiles(server, name, "remote/\(name)", levels: [11, 10, 7, 0])
            }
            // Facts read from the TIFF: the resolution tags' microns per pixel.
            let (photo, remote) = (try RecordedPropertiesTests.entry(server, "photo"), try RecordedPropertiesTests.entry(server, "remote/photo"))
            let microns = try #require(remote["micronsPerPixel"] as? [String: Double], "\(remote)")
            #expect(microns == photo["micronsPerPixel"] as? [String: Double] && microns["x"] == 250)
            #expect(remote["vendor"] as? String == "tiff" && remote["version"] as? String != photo["version"] as? String)
            // IIIF and the visible-rect query, as for the file.
            let region = "/full/275,/0/default.jpg"
            let (mine, theirs) = (try fetch(server, "/iiif/3/photo\(region)"), try fetch(server, "/iiif/3/remote%2Fphoto\(region)"))
            #expect(theirs.status == 200 && theirs.body == mine.body, "\(theirs.status) \(theirs.text.prefix(200))")
            let info = try fetch(server, "/iiif/3/remote%2Fphoto/info.json")
            #expect(info.status == 200 && info.text.contains("\"width\":1100") && info.text.contains("\"height\":700"), "\(info.text)")
            let query = "/visible?x=0&y=0&width=1100&height=700&zoomScale=0.5"
            let visible = try fetch(server, "/api/images/remote/photo\(query)")
            #expect(visible.status == 200)
            #expect(
                visible.text.components(separatedBy: "_files/").count
                    == (try fetch(server, "/api/images/photo\(query)")).text.components(separatedBy: "_files/").count)
        }
    }

    /// An Aperio SVS (Deflate, two resolutions, a label and a macro image): its tiles and what its description says
    /// (objective, microns per pixel) as from the file; the associated images OpenSlide reads are not read from a store.
    @Test func anAperioSVSServesItsTilesAndFactsButNotOpenSlidesExtras() async throws {
        let bucket = try await BucketTIFFFixture.make("tiff-svs")
        let slides = bucket.fixture.base + "/slides"
        try await blocking { try SlideFixture.run("/usr/bin/python3", [SlideFixture.scripts + "/make_slides.py", slides]) }
        try FileManager.default.copyItem(atPath: slides + "/pyramid.svs", toPath: bucket.fixture.root + "/pyramid.svs")
        try await BucketTIFFFixture.upload(slides + "/pyramid.svs", as: "imgs/remote/pyramid.svs", to: bucket.client)
        try await bucket.withServer(bucket.configuration()) { server in
            let descriptor = try DZIDescriptor(xml: try fetch(server, "/images/remote/pyramid.dzi").text)
            #expect(descriptor.width == 2048 && descriptor.height == 1536)
            try expectSameTiles(server, "pyramid", "remote/pyramid", levels: [11, 10, 9, 5])
            let (local, remote) = (try RecordedPropertiesTests.entry(server, "pyramid"), try RecordedPropertiesTests.entry(server, "remote/pyramid"))
            #expect(remote["vendor"] as? String == "aperio" && remote["objectivePower"] as? Double == 40)
            #expect(remote["micronsPerPixel"] as? [String: Double] == local["micronsPerPixel"] as? [String: Double])
            #expect(local["associated"] != nil && remote["associated"] == nil, "\(remote)")
            #expect(try fetch(server, "/api/images/remote/pyramid/associated/label").status == 404)
        }
    }

    /// A slide sliced to a TIFF keeps its properties in its description and its label, macro and thumbnail as
    /// directories of their own: from a bucket as from the file, each associated image one GET of its strip.
    @Test func aSlicedSlidesTIFFServesItsRecordedFactsAndAssociatedImages() async throws {
        let bucket = try await BucketTIFFFixture.make("tiff-slide")
        let slides = bucket.fixture.base + "/slides"
        try await blocking {
            try SlideFixture.run("/usr/bin/python3", [SlideFixture.scripts + "/make_slides.py", slides])
            try SlicedSlideTIFFTests.sliceToTIFF(slides + "/labelled.svs", name: "labelled", in: bucket.fixture)
        }
        try await BucketTIFFFixture.upload(bucket.fixture.root + "/labelled.tif", as: "imgs/remote/labelled.tif", to: bucket.client)
        try await bucket.withServer(bucket.configuration()) { server in
            let (local, remote) = (
                try RecordedPropertiesTests.entry(server, "labelled"), try RecordedPropertiesTests.entry(server, "remote/labelled")
            )
            for key in ["vendor", "objectivePower"] { #expect("\(remote[key] ?? "none")" == "\(local[key] ?? "none")", "\(key)") }
            #expect(remote["micronsPerPixel"] as? [String: Double] == local["micronsPerPixel"] as? [String: Double])
            #expect((remote["associated"] as? [String: String])?.keys.sorted() == ["label", "macro", "thumbnail"], "\(remote)")
            for kind in ["label", "macro", "thumbnail"] {
                let (mine, theirs) = (
                    try fetch(server, "/api/images/labelled/associated/\(kind)"), try fetch(server, "/api/images/remote/labelled/associated/\(kind)")
                )
                #expect(theirs.status == 200 && theirs.body == mine.body, "\(kind): \(theirs.status)")
            }
            #expect(try fetch(server, "/api/images/remote/labelled/properties").status == 200)
        }
    }

    /// The same slide sliced to an SZI: its label, macro image and thumbnail, each one ranged GET of the entry and its
    /// local header, as from the file under ROOT.
    @Test func aSlicedSlidesSZIServesItsAssociatedImages() async throws {
        let bucket = try await BucketTIFFFixture.make("szi-slide")
        let slides = bucket.fixture.base + "/slides"
        try await blocking {
            try SlideFixture.run("/usr/bin/python3", [SlideFixture.scripts + "/make_slides.py", slides])
            try SlicedSlideTIFFTests.sliceToTIFF(slides + "/labelled.svs", name: "labelled", container: .szi, in: bucket.fixture)
        }
        try await BucketTIFFFixture.upload(bucket.fixture.root + "/labelled.szi", as: "imgs/remote/labelled.szi", to: bucket.client)
        try await bucket.withServer(bucket.configuration()) { server in
            let remote = try RecordedPropertiesTests.entry(server, "remote/labelled")
            #expect((remote["associated"] as? [String: String])?.keys.sorted() == ["label", "macro", "thumbnail"], "\(remote)")
            for kind in ["label", "macro", "thumbnail"] {
                let (mine, theirs) = (
                    try fetch(server, "/api/images/labelled/associated/\(kind)"), try fetch(server, "/api/images/remote/labelled/associated/\(kind)")
                )
                #expect(theirs.status == 200 && !theirs.body.isEmpty && theirs.body == mine.body, "\(kind): \(theirs.status)")
            }
            #expect(try fetch(server, "/api/images/remote/labelled/associated/overview").status == 404)
        }
    }

    /// One TIFF on a plain HTTP server that answers ranges (`https://HOST/PATH/NAME.tif`): served as the file.
    @Test func oneTIFFOnAPlainHTTPServerThatAnswersRanges() async throws {
        let nginx = try await TestNginx()
        defer { nginx.stop() }
        let fixture = try await blocking { () throws -> PyramidFixture in
            let fixture = try PyramidFixture()
            try fixture.addVipsTIFF("photo.tif", picture: BucketTIFFFixture.picture, options: ["--tile", "--pyramid", "--compression", "jpeg"])
            return fixture
        }
        try FileManager.default.copyItem(atPath: fixture.root + "/photo.tif", toPath: nginx.root.file("remote.tif"))
        var configuration = testConfiguration(root: fixture.root)
        configuration.objectRoots = [nginx.url + "remote.tif"]
        configuration.rescanInterval = .seconds(3600)
        configuration.fullRescanInterval = .seconds(3600)
        configuration.storeRescanInterval = .seconds(3600)
        let server = try await Server.start(configuration)
        do {
            #expect(try fetch(server, "/api/images").text.contains("\"name\":\"remote\""))
            try expectSameTiles(server, "photo", "remote", levels: [11, 9])
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }
}
