import Foundation
import TestSupport
import Testing
import TileGeometry

@Suite struct ZoomMathTests {
    typealias Size = ZoomMath.Size
    typealias Point = ZoomMath.Point

    @Test func aspectFitFitsBothSidesAndFillsOne() {
        var random = SplitMix64(seed: 11)
        for _ in 0..<2_000 {
            let content = Size(width: random.logUniform(1...1e6), height: random.logUniform(1...1e6))
            let viewport = Size(width: random.logUniform(1...1e4), height: random.logUniform(1...1e4))
            let z = ZoomMath.aspectFitZoom(content: content, viewport: viewport)
            let (w, h) = (content.width * z, content.height * z)
            #expect(w <= viewport.width * (1 + 1e-12) && h <= viewport.height * (1 + 1e-12))
            #expect(abs(w - viewport.width) <= viewport.width * 1e-12 || abs(h - viewport.height) <= viewport.height * 1e-12)
        }
        #expect(ZoomMath.aspectFitZoom(content: Size(width: 4000, height: 1000), viewport: Size(width: 400, height: 400)) == 0.1)
    }

    @Test func centeringInsetCentresSmallContentOnly() {
        let content = Size(width: 1000, height: 500)
        let viewport = Size(width: 800, height: 600)
        let small = ZoomMath.centeringInset(content: content, zoomScale: 0.5, viewport: viewport)
        #expect(small == ZoomMath.Insets(top: 175, left: 150, bottom: 175, right: 150))
        #expect(small.left + content.width * 0.5 + small.right == viewport.width)
        let wide = ZoomMath.centeringInset(content: content, zoomScale: 1, viewport: viewport)
        #expect(wide == ZoomMath.Insets(top: 50, left: 0, bottom: 50, right: 0))
        #expect(ZoomMath.centeringInset(content: content, zoomScale: 3, viewport: viewport) == .zero)
    }

    @Test func clampedOffsetStaysInTheScrollableRange() {
        let content = Size(width: 1000, height: 500)
        let viewport = Size(width: 800, height: 600)
        let inset = ZoomMath.centeringInset(content: content, zoomScale: 2, viewport: viewport)  // 2000×1000 > viewport
        func clamp(_ x: Double, _ y: Double) -> Point {
            ZoomMath.clampedOffset(Point(x: x, y: y), content: content, zoomScale: 2, viewport: viewport, inset: inset)
        }
        #expect(clamp(100, 200) == Point(x: 100, y: 200))
        #expect(clamp(-50, -1e9) == Point(x: 0, y: 0))
        #expect(clamp(5000, 5000) == Point(x: 2000 - 800, y: 1000 - 600))
        // Smaller than the viewport: the only resting offset shows the content centred.
        let small = ZoomMath.centeringInset(content: content, zoomScale: 0.5, viewport: viewport)
        for x in [-1000.0, 0, 1000] {
            let rest = ZoomMath.clampedOffset(Point(x: x, y: x), content: content, zoomScale: 0.5, viewport: viewport, inset: small)
            #expect(rest == Point(x: -150, y: -175))
        }
        let withInset = ZoomMath.Insets(top: 10, left: 20, bottom: 30, right: 40)
        let far = ZoomMath.clampedOffset(Point(x: 1e9, y: -1e9), content: content, zoomScale: 2, viewport: viewport, inset: withInset)
        #expect(far == Point(x: 2000 + 40 - 800, y: -10))
    }

    @Test func zoomToRectFitsAndCentresTheRect() {
        let content = Size(width: 10_000, height: 8_000)
        let viewport = Size(width: 800, height: 600)
        var random = SplitMix64(seed: 12)
        for _ in 0..<1_000 {
            let width = random.logUniform(50...3_000)
            let height = random.logUniform(50...1_900)
            let rect = ImageRect(
                x: Double.random(in: 3_000...(7_000 - width), using: &random), y: Double.random(in: 3_000...(5_000 - height), using: &random),
                width: width, height: height)
            let target = ZoomMath.zoom(to: rect, content: content, viewport: viewport, minimumZoomScale: 0.01, maximumZoomScale: 100)
            let z = target.zoomScale
            #expect(rect.width * z <= viewport.width * (1 + 1e-12) && rect.height * z <= viewport.height * (1 + 1e-12))
            #expect(abs(rect.width * z - viewport.width) < 1e-9 || abs(rect.height * z - viewport.height) < 1e-9)
            // Away from the edges nothing clamps: the rect's centre is the viewport's centre.
            #expect(abs((target.offset.x + viewport.width / 2) / z - rect.midX) < 1e-6)
            #expect(abs((target.offset.y + viewport.height / 2) / z - rect.midY) < 1e-6)
            #expect(target.inset == .zero)
        }
    }

    @Test func zoomToRectClampsZoomAndOffset() {
        let content = Size(width: 1_000, height: 1_000)
        let viewport = Size(width: 500, height: 500)
        let point = ZoomMath.zoom(
            to: ImageRect(x: 10, y: 10, width: 0, height: 0), content: content, viewport: viewport, minimumZoomScale: 0.5, maximumZoomScale: 4)
        #expect(point.zoomScale == 4 && point.offset == Point(x: 0, y: 0))
        let everything = ZoomMath.zoom(
            to: ImageRect(x: -5_000, y: 0, width: 20_000, height: 10), content: content, viewport: viewport, minimumZoomScale: 0.5,
            maximumZoomScale: 4)
        #expect(everything.zoomScale == 0.5)
        #expect(everything.offset == Point(x: 0, y: 0) && everything.inset == .zero)
        let corner = ZoomMath.zoom(
            to: ImageRect(x: 900, y: 950, width: 100, height: 50), content: content, viewport: viewport, minimumZoomScale: 0.5, maximumZoomScale: 4)
        #expect(corner.zoomScale == 4 && corner.offset == Point(x: 4_000 - 500, y: 4_000 - 500))
    }

    /// The closed form against a millisecond-by-millisecond simulation of UIScrollView's decay.
    @Test(arguments: [ZoomMath.normalDecelerationRate, ZoomMath.fastDecelerationRate], [-5_000.0, -1, 0, 300, 2_500])
    func decelerationMatchesTheDecaySum(rate: Double, velocity: Double) {
        var travelled = 0.0
        var speed = velocity / 1000  // points per millisecond
        for _ in 0..<100_000 {
            speed *= rate
            travelled += speed
        }
        let distance = ZoomMath.decelerationDistance(velocity: velocity, rate: rate)
        #expect(abs(distance - travelled) <= 1e-9 * max(1, abs(distance)))
        #expect(distance == velocity / 1000 * rate / (1 - rate))
        let rest = ZoomMath.restingOffset(Point(x: 10, y: -20), velocity: Point(x: velocity, y: -velocity), rate: rate)
        #expect(rest == Point(x: 10 + distance, y: -20 - distance))
    }

    @Test func decelerationRatesAndAKnownValue() {
        #expect(ZoomMath.normalDecelerationRate == 0.998 && ZoomMath.fastDecelerationRate == 0.99)
        #expect(abs(ZoomMath.decelerationDistance(velocity: 1000, rate: 0.998) - 499) < 1e-9)
        #expect(abs(ZoomMath.decelerationDistance(velocity: 1000, rate: 0.99) - 99) < 1e-9)
    }
}
