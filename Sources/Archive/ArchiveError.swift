import Glibc

/// Why an archive cannot be written or is refused: one line, naming the file and what is wrong with it.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    /// The line, e.g. `out.szi: the central directory reaches past the end of the file`.
    public let message: String
    /// The `errno` of a failed system call, or nil when the archive itself is at fault.
    public let code: Int32?

    /// Creates an error with `message` and, for a failed system call, its `errno`.
    public init(_ message: String, errno code: Int32? = nil) {
        self.message = code.map { "\(message): \(String(cString: strerror($0)))" } ?? message
        self.code = code
    }

    public var description: String { message }
}
