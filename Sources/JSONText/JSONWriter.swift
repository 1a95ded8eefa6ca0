/// A minimal append-only JSON text builder over a growable UTF-8 byte buffer: numbers, escaped strings and raw
/// punctuation.
///
/// Hand-written because the visible-tiles answer is produced tens of thousands of times a second and the geometry
/// uses the standard library only. Noncopyable: it owns its buffer. The one JSON writer of the project (its own
/// target, below TileGeometry, the server and the command line): the server's answers, the log's JSON records and the
/// command line's `--json` output are written with it, and the access log escapes its fields by its rule
/// (``JSONEscaping``).
///
/// Two ways to write:
/// - **Structured** (``openObject()``, ``key(_:)``, `value(_:)`, ``closeObject()``, …): commas between members
///   and elements are written for you.
/// - **Raw** (`raw(_:)`, ``integer(_:)``, ``number(_:)``, ``string(_:)``): nothing but what is asked, for hot
///   paths that write fixed punctuation and keys in one go. Do not mix the two inside one object or array.
public struct JSONWriter: ~Copyable {
    // Visible to inlinable code: the raw appends are inlined into the callers' loops across modules (the
    // visible-tiles answer writes some 400 integers and punctuation runs per query).
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count = 0
    @usableFromInline var capacity: Int
    /// Whether the next structured member or element needs a comma before it.
    private var needsSeparator = false

    /// Creates an empty writer with room for `capacity` bytes (it grows as needed).
    public init(capacity: Int = 256) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Writes `body`'s JSON into a new writer and returns its text.
    public static func text(capacity: Int = 256, _ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter(capacity: capacity)
        body(&writer)
        return writer.text
    }

    /// The text written so far.
    public var text: String {
        String(unsafeUninitializedCapacity: count) { target in
            _ = target.initialize(fromContentsOf: UnsafeBufferPointer(start: base, count: count))
            return count
        }
    }

    /// The number of bytes written so far.
    public var byteCount: Int { count }

    /// Calls `body` with the bytes written so far.
    public func withBytes<Result: ~Copyable>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Makes room for `extra` more bytes.
    @inlinable @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count &+ extra > capacity { grow(to: count &+ extra) }
    }

    @usableFromInline @inline(never)
    mutating func grow(to needed: Int) {
        let larger = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    /// Appends `text` verbatim (punctuation and keys known to need no escaping).
    @inlinable @inline(__always)
    public mutating func raw(_ text: StaticString) {
        let length = text.utf8CodeUnitCount
        reserve(length)
        (base + count).initialize(from: text.utf8Start, count: length)
        count += length
    }

    /// Appends bytes verbatim.
    @inlinable @inline(__always)
    public mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(bytes.count)
        if let start = bytes.baseAddress { (base + count).initialize(from: start, count: bytes.count) }
        count += bytes.count
    }

    /// Appends `value` in decimal.
    ///
    /// - Complexity: O(digits), two digits per step; values below 100 (a tile's level, most columns and rows) without
    ///   a loop.
    @inlinable
    public mutating func integer(_ value: Int) {
        reserve(20)
        var magnitude = value.magnitude
        if value < 0 {
            base[count] = UInt8(ascii: "-")
            count &+= 1
        }
        if magnitude < 10 {
            base[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
            count &+= 1
            return
        }
        if magnitude < 100 {
            Self.writeTwoDigits(magnitude, at: base + count)
            count &+= 2
            return
        }
        var digits = 3
        var power: UInt = 1000
        while digits < 20 && magnitude >= power {
            digits &+= 1
            power = power &* 10
        }
        var end = base + (count &+ digits)
        count &+= digits
        while magnitude >= 100 {
            let quotient = magnitude / 100
            end -= 2
            Self.writeTwoDigits(magnitude &- quotient &* 100, at: end)
            magnitude = quotient
        }
        if magnitude >= 10 {
            Self.writeTwoDigits(magnitude, at: end - 2)
        } else {
            (end - 1).pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
        }
    }

    /// Writes `value` (0–99) as two ASCII digits at `target`.
    @inlinable @inline(__always)
    static func writeTwoDigits(_ value: UInt, at target: UnsafeMutablePointer<UInt8>) {
        let tens = value / 10
        target[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: tens)
        target[1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value &- tens &* 10)
    }

    /// Appends `value` as a JSON number: integral values below 2⁵³ without a fraction (`4096`), others in the
    /// shortest form that reads back to the same `Double` (`0.25`, `1e-07`).
    ///
    /// - Precondition: `value` is finite.
    public mutating func number(_ value: Double) {
        precondition(value.isFinite, "JSON has no non-finite numbers")
        if value.magnitude < 9_007_199_254_740_992, value == Double(Int(value)) {
            integer(Int(value))
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        text.withUTF8 { raw($0) }
    }

    /// Appends `value` as a JSON string: quotes, backslashes and control characters escaped, and U+2028/U+2029 too
    /// so the text is also a valid JavaScript literal.
    public mutating func string(_ value: String) {
        raw("\"")
        string(contentsOf: value)
        raw("\"")
    }

    /// Appends `value` escaped for the inside of a JSON string, without quotes.
    public mutating func string(contentsOf value: String) {
        var value = value
        value.withUTF8 { escaped($0) }
    }

    /// Appends UTF-8 `bytes` escaped for the inside of a JSON string (``JSONEscaping``).
    private mutating func escaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        JSONEscaping.escape(bytes) { raw($0.assumingMemoryBound(to: UInt8.self)) }
    }

    // The separator state lives here because extensions cannot add stored properties.
    mutating func separate() {
        if needsSeparator { raw(",") }
    }

    mutating func needsSeparatorAfterOpening() { needsSeparator = false }

    mutating func valueWritten() { needsSeparator = true }
}
