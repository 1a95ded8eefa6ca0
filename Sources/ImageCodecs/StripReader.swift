/// The `ImageRowReader` for both formats: clamps requests to the image, counts rows, converts colours when a
/// ``ColourTransform`` is given, and turns a shim failure into a `CodecError` naming the file and the row reached.
final class StripReader<Source: RowSource>: ImageRowReader {
    let header: ImageHeader
    private(set) var rowsRead = 0
    private let source: Source
    private let path: String
    private let transform: ColourTransform?
    /// Source rows before conversion (only with a transform): O(width × rows per request).
    private var scratch: [UInt8] = []
    /// The first failure; every later call throws it again, even one that asks for no rows.
    private var failure: CodecError?

    init(source: Source, header: ImageHeader, path: String, transform: ColourTransform? = nil) {
        self.source = source
        self.header = header
        self.path = path
        self.transform = transform
        if let transform { precondition(transform.outputChannels == header.channels, "transform output must match the header") }
    }

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, rowCount: Int) throws -> Int {
        precondition(rowCount >= 0, "rowCount must not be negative")
        if let failure { throw failure }
        let count = min(rowCount, header.height - rowsRead)
        guard count > 0 else { return 0 }
        var done: UInt32 = 0
        let status: Int32
        if let transform {
            let rawStride = header.width * transform.input.bytesPerPixel
            if scratch.count < rawStride * count { scratch = [UInt8](repeating: 0, count: rawStride * count) }
            status = scratch.withUnsafeMutableBufferPointer { raw in
                let status = source.read(into: raw.baseAddress!, stride: rawStride, count: UInt32(count), done: &done)
                transform.apply(
                    rows: Int(done), from: raw.baseAddress!, stride: rawStride, to: buffer,
                    stride: header.width * header.channels, pixels: header.width)
                return status
            }
        } else {
            status = source.read(into: buffer, stride: header.width * header.channels, count: UInt32(count), done: &done)
        }
        rowsRead += Int(done)
        guard status == 0 else {
            let error = CodecError(
                kind: CodecError.kind(forShimStatus: status), path: path, message: source.message,
                row: source.errorRow, height: header.height)
            failure = error
            throw error
        }
        return Int(done)
    }
}
