/// Tile file names, `{column}_{row}.{format}`, written into stack memory: a tile miss opens its file without
/// building a `String`.
package enum TileFileName {
    /// The longest name: two 10-digit numbers, `_`, `.`, a format of up to 16 bytes, and the NUL.
    package static let capacity = 40

    /// Calls `body` with the NUL-terminated name of tile (`column`, `row`) in `format` (e.g. `jpg`).
    ///
    /// - Precondition: `column` and `row` ≥ 0; `format` at most 16 bytes (a descriptor's formats are short).
    package static func withCString<R>(column: Int32, row: Int32, format: String.UTF8View, _ body: (UnsafePointer<CChar>) -> R) -> R {
        precondition(column >= 0 && row >= 0 && format.count <= 16)
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { name in
            var end = write(column, into: name, at: 0)
            name[end] = CChar(UInt8(ascii: "_"))
            end = write(row, into: name, at: end + 1)
            name[end] = CChar(UInt8(ascii: "."))
            end += 1
            for byte in format {
                name[end] = CChar(bitPattern: byte)
                end += 1
            }
            name[end] = 0
            return body(UnsafePointer(name.baseAddress!))
        }
    }

    /// Writes `value`'s decimal digits at `start`; returns the index after them.
    private static func write(_ value: Int32, into name: UnsafeMutableBufferPointer<CChar>, at start: Int) -> Int {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var remaining = value
        for index in stride(from: start + digits - 1, through: start, by: -1) {
            name[index] = CChar(UInt8(ascii: "0") + UInt8(remaining % 10))
            remaining /= 10
        }
        return start + digits
    }
}
