import Glibc

/// Why an archive cannot be written or is refused: one line, naming the file and what is wrong with it.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    /// The line, e.g. `out.szi: the central directory reaches past the end of the file`.
    public let message: String
    /// The `errno` of a failed system call, or nil when the archive itself is at fault.
    public let code: Int32?
    /// The failure of the layer the bytes came through, when a read failed there rather than the archive being at
    /// fault: an object store's error (a replaced object, a store that is down), so that a caller can tell those apart
    /// from damage. Nil for files (``code`` says it) and for the archive's own faults.
    public let underlying: (any Error)?

    /// Creates an error with `message` and, for a failed system call, its `errno`.
    public init(_ message: String, errno code: Int32? = nil) {
        self.message = code.map { "\(message): \(String(cString: strerror($0)))" } ?? message
        self.code = code
        self.underlying = nil
    }

    /// Creates an error with `message` for a read that failed in the layer below with `underlying`.
    public init(_ message: String, underlying: any Error) {
        self.message = message
        self.code = nil
        self.underlying = underlying
    }

    public var description: String { message }
}
