/// One C decoder behind a `StripReader`: the format-specific half of a row reader.
protocol StripDecoder: AnyObject {
    /// Decodes up to `count` rows into `buffer` (`stride` bytes apart), sets `done`, returns the shim status (0 = success).
    func read(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: UInt32, done: inout UInt32) -> Int32
    /// The shim's message for the last failure.
    var message: String { get }
    /// The row being decoded at the last failure, if it happened while decoding rows.
    var errorRow: Int? { get }
    /// Rows a band holds when it can be decoded straight into rows `stride` bytes apart; 0 when it cannot.
    func directRows(stride: Int) -> Int
}

extension StripDecoder {
    func directRows(stride: Int) -> Int { 0 }
}
