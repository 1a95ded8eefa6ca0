import CJPEG

extension JPEGFixture {
    /// Writes the fixture with libjpeg at `quality`, optionally with an Exif APP1 payload.
    func write(to path: String, quality: Int32 = 95, exif: [UInt8]? = nil) throws {
        let components = storedPatch(0).count
        var pixels: [UInt8] = []
        for y in 0..<Self.height {
            for x in 0..<Self.width { pixels += storedPatch(Self.patch(x: x, y: y)) }
        }
        var image = tiler_jpeg_test_image()
        image.width = UInt32(Self.width)
        image.height = UInt32(Self.height)
        image.components = Int32(components)
        image.stride = Self.width * components
        image.color_space = colorSpace
        image.h_samp = hSamp
        image.v_samp = vSamp
        image.progressive = progressive ? 1 : 0
        image.quality = quality
        image.adobe_marker = adobeMarker
        try Self.write(&image, pixels: pixels, exif: exif, to: path)
    }

    /// Writes arbitrary samples (`components` per pixel) as a JPEG: for tests that need their own image.
    static func write(
        pixels: [UInt8], width: Int, height: Int, components: Int, colorSpace: Int32, quality: Int32 = 90, hSamp: Int32 = 2,
        vSamp: Int32 = 2, progressive: Bool = false, to path: String
    ) throws {
        var image = tiler_jpeg_test_image()
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.components = Int32(components)
        image.stride = width * components
        image.color_space = colorSpace
        image.h_samp = hSamp
        image.v_samp = vSamp
        image.progressive = progressive ? 1 : 0
        image.quality = quality
        image.adobe_marker = -1
        try write(&image, pixels: pixels, exif: nil, to: path)
    }

    private static func write(_ image: inout tiler_jpeg_test_image, pixels: [UInt8], exif: [UInt8]?, to path: String) throws {
        var message = [CChar](repeating: 0, count: 256)
        let status = pixels.withUnsafeBufferPointer { pixelPointer in
            (exif ?? []).withUnsafeBufferPointer { exifPointer in
                image.pixels = pixelPointer.baseAddress
                if exif != nil {
                    image.exif = exifPointer.baseAddress
                    image.exif_length = UInt32(exifPointer.count)
                }
                return tiler_jpeg_write_test(path, &image, &message, message.count)
            }
        }
        guard status == 0 else { throw FixtureError(message: String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)) }
    }
}
