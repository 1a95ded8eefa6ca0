import CJPEG
import CPNG
import ImageCodecs
import Testing

@Test func smoke() { #expect(TILER_PNG_OK == 0 && TILER_JPEG_OK == 0) }
