import Foundation
import ImageCodecs
import Slicing
import Testing

@testable import TileServer

/// A whole-slide image sliced to a pyramidal TIFF keeps its label, macro image and thumbnail (a directory each), which
/// `tiler serve` lists and serves at `/api/images/NAME/associated/KIND` as it serves a folder's or an SZI's.
@Suite struct SlicedSlideTIFFTests {
    /// Slices the slide at `path` (its properties and associated images recorded, as `tiler slice` does) into
    /// `ROOT/name.tif` (or another `container`).
    static func sliceToTIFF(_ path: String, name: String, container: PyramidContainer = .tiff, in fixture: PyramidFixture) throws {
        let source = try ImageDecoder.open(path: path)
        var options = TileFormat.jpeg(quality: 85).sliceOptions()
        options.container = container
        options.threads = 2
        options.recordSlide(at: path, width: source.width, height: source.height, bands: source.channels)
        _ = try PyramidBuilder(options: options).slice(source, into: fixture.root, name: name)
    }

    @Test func aSlicedSlidesTIFFServesItsAssociatedImages() async throws {
        let fixture = try PyramidFixture()
        // make_slides.py's labelled.svs: 700 × 500, a 240 × 120 label, a 400 × 150 macro image, an 87 × 62 thumbnail.
        let slides = fixture.base + "/slides"
        try await blocking {
            try SlideFixture.run("/usr/bin/python3", [SlideFixture.scripts + "/make_slides.py", slides])
            try Self.sliceToTIFF(slides + "/labelled.svs", name: "labelled", in: fixture)
            // A picture's TIFF keeps none.
            let picture = fixture.base + "/picture.png"
            try Data(try PNGEncoder().encode(TestPicture.make(width: 600, height: 400))).write(to: URL(fileURLWithPath: picture))
            try Self.sliceToTIFF(picture, name: "plain", in: fixture)
        }
        let slide = try Slide(path: slides + "/labelled.svs")
        try await withServer(fixture) { server in
            let entry = try RecordedPropertiesTests.entry(server, "labelled")
            #expect(entry["vendor"] as? String == "aperio", "its properties are recorded too: \(entry)")
            let associated = try #require(entry["associated"] as? [String: String], "\(entry)")
            #expect(associated.keys.sorted() == ["label", "macro", "thumbnail"])
            for kind in ["label", "macro", "thumbnail"] {
                #expect(associated[kind] == "/api/images/labelled/associated/\(kind)")
                let response = try fetch(server, "/api/images/labelled/associated/\(kind)")
                #expect(response.status == 200 && response.header("Content-Type") == "image/jpeg", "\(kind): \(response.status)")
                let image = try decodeImage(response.body)
                let size = try #require(slide.associatedImages[kind])
                #expect(image.width == size.width && image.height == size.height, "\(kind)")
                let etag = try #require(response.header("ETag"))
                #expect(try fetch(server, "/api/images/labelled/associated/\(kind)", headers: ["If-None-Match: \(etag)"]).status == 304)
            }
            // The label's pixels are OpenSlide's, at JPEG quality 90.
            let label = try decodeImage(try fetch(server, "/api/images/labelled/associated/label").body)
            let reference = try slide.associatedRGB("label")
            let difference = zip(label.bytes, reference.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            #expect(Double(difference) / Double(reference.bytes.count) < 6)
            #expect(try fetch(server, "/api/images/labelled/associated/overview").status == 404)
            #expect(try fetch(server, "/api/images/labelled/properties").status == 200)
            #expect(try RecordedPropertiesTests.entry(server, "plain")["associated"] == nil)
            #expect(try fetch(server, "/api/images/plain/associated/label").status == 404)
        }
    }
}
