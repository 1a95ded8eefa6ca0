/// Parses the `LEVEL/COL_ROW` part of a tile entry's name: decimal numbers without sign or leading zeros.
enum TileName {
    /// The address in `bytes`, or nil when they are not exactly `LEVEL/COL_ROW`.
    static func parse(_ bytes: ArraySlice<UInt8>) -> (level: Int, column: Int, row: Int)? {
        var numbers: [Int] = []
        numbers.reserveCapacity(3)
        var value = -1
        var separators: [UInt8] = [UInt8(ascii: "/"), UInt8(ascii: "_")]
        for byte in bytes {
            if byte >= 0x30 && byte <= 0x39 {
                if value == 0 { return nil }
                value = max(value, 0) * 10 + Int(byte - 0x30)
                if value > Int(Int32.max) { return nil }
            } else {
                guard value >= 0, !separators.isEmpty, byte == separators.removeFirst() else { return nil }
                numbers.append(value)
                value = -1
            }
        }
        guard value >= 0, separators.isEmpty else { return nil }
        return (numbers[0], numbers[1], value)
    }
}
