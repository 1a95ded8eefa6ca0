import Testing

@testable import SampleImage

@Suite struct ProceduralImageTests {
    func render(_ image: ProceduralImage, from start: Int, rows: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: rows * image.width * 3)
        out.withUnsafeMutableBufferPointer { image.renderRows(startRow: start, rowCount: rows, into: $0.baseAddress!) }
        return out
    }

    @Test(arguments: [(1, 1), (7, 3), (300, 200), (1000, 17)])
    func bandsRenderTheSamePixelsAsTheWhole(width: Int, height: Int) {
        let image = ProceduralImage(width: width, height: height, seed: 42)
        let whole = render(image, from: 0, rows: height)
        var pieces: [UInt8] = []
        var row = 0
        var band = 1
        while row < height {
            let count = min(band, height - row)
            pieces += render(image, from: row, rows: count)
            row += count
            band += 2
        }
        #expect(pieces == whole)
    }

    @Test func sameSeedSamePixelsOtherSeedOtherPixels() {
        let a = render(ProceduralImage(width: 200, height: 100, seed: 1), from: 0, rows: 100)
        let b = render(ProceduralImage(width: 200, height: 100, seed: 1), from: 0, rows: 100)
        let c = render(ProceduralImage(width: 200, height: 100, seed: 2), from: 0, rows: 100)
        #expect(a == b)
        #expect(a != c)
    }

    @Test func looksLikeAPictureNotNoiseOrFlat() {
        let width = 512
        let pixels = render(ProceduralImage(width: width, height: 512, seed: 3), from: 0, rows: 512)
        // Wide spread of values, but neighbours mostly close: structure at large scale with detail on top.
        let mean = Double(pixels.reduce(0) { $0 + Int($1) }) / Double(pixels.count)
        let variance = pixels.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(pixels.count)
        var neighbour = 0.0
        for i in stride(from: 0, to: pixels.count - 3, by: 3) { neighbour += abs(Double(pixels[i]) - Double(pixels[i + 3])) }
        neighbour /= Double(pixels.count / 3)
        #expect(variance.squareRoot() > 20)
        #expect(neighbour < variance.squareRoot() / 2)
    }
}
