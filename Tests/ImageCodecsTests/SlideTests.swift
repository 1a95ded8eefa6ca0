import Foundation
import ImageCodecs
import Testing

/// ``Slide`` over openslide-python 1.2.0's test slides (fetched by `scripts/setup`): what OpenSlide reports, regions as
/// straight RGB, and its failures as ``SlideError``s.
@Suite struct SlideTests {
    static var fixtures: String {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
        return (environment["TILER_SLIDE_FIXTURES"] ?? cache + "/tiler/openslide-python-1.2.0") + "/tests"
    }

    @Test func anAperioSlidesLevelsPropertiesAndThumbnail() throws {
        #expect(Slide.vendor(of: Self.fixtures + "/small.svs") == "aperio")
        let slide = try Slide(path: Self.fixtures + "/small.svs")
        #expect(slide.vendor == "aperio")
        #expect(slide.levels.map { [$0.width, $0.height] } == [[16, 16]] && slide.levels[0].downsample == 1)
        #expect(slide.properties["openslide.mpp-x"] == "0.499" && slide.properties["openslide.objective-power"] == "20")
        #expect(slide.background.red == 255 && slide.background.green == 255 && slide.background.blue == 255)
        let thumbnail = try #require(slide.associatedImages["thumbnail"])
        let pixels = try slide.associatedRGB("thumbnail")
        #expect(pixels.width == thumbnail.width && pixels.height == thumbnail.height && pixels.pixelFormat == .rgb)
        let region = try slide.rgb(level: 0, x: 0, y: 0, width: 16, height: 16)
        #expect(region.bytes.count == 16 * 16 * 3 && Set(region.bytes).count > 8, "real pixels, not a blank")
        // Outside the slide OpenSlide gives transparent pixels: the background colour.
        let outside = try slide.rgb(level: 0, x: 100, y: 100, width: 4, height: 4)
        #expect(outside.bytes.allSatisfy { $0 == 255 })
    }

    @Test func failuresAreSlideErrors() throws {
        #expect(throws: SlideError.self) { try Slide(path: Self.fixtures + "/boxes.png") }
        do {
            _ = try Slide(path: Self.fixtures + "/boxes.png")
        } catch {
            #expect(error.kind == .notASlide)
        }
        do {
            _ = try Slide(path: Self.fixtures + "/unopenable.tiff")
            Issue.record("unopenable.tiff opened")
        } catch {
            #expect(error.kind == .damaged && error.reason.contains("compression"), "\(error)")
        }
        let unreadable = try Slide(path: Self.fixtures + "/unreadable.svs")
        do {
            _ = try unreadable.rgb(level: 0, x: 0, y: 0, width: 16, height: 16)
            Issue.record("unreadable.svs read")
        } catch {
            #expect(error.kind == .damaged && error.reason.contains("marker"), "\(error)")
        }
        #expect(unreadable.isFailed, "OpenSlide keeps a failed handle failed")
        let slide = try Slide(path: Self.fixtures + "/small.svs")
        #expect(throws: SlideError.self) { try slide.rgb(level: 1, x: 0, y: 0, width: 1, height: 1) }
        #expect(throws: SlideError.self) { try slide.associatedRGB("label") }
    }
}
