import Foundation

/// Why a slice failed: a ``reason`` to branch on and a one-line, specific ``message`` to show.
///
/// Whatever the reason, nothing is left behind: the temporary folder is removed and the destination is as it was.
public struct SliceError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The kind of failure. A struct with static members, so new kinds do not break callers' `switch`es.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// Options out of range (tile size, overlap, threads, extension, name).
        public static let invalidOptions = Reason("invalid options")
        /// The source's size or channel count cannot be sliced.
        public static let invalidSource = Reason("invalid source")
        /// `NAME.dzi` or `NAME_files` already exists and `force` is off.
        public static let destinationExists = Reason("destination exists")
        /// The destination folder is missing, unwritable, or a move into place failed.
        public static let destination = Reason("destination")
        /// The source threw or ended early; the message names the row reached.
        public static let source = Reason("source")
        /// The tile encoder threw.
        public static let encoder = Reason("encoder")
        /// Writing a tile or the descriptor failed (for instance ENOSPC).
        public static let write = Reason("write")
        /// ``PyramidBuilder/cancel()`` or the ``SliceCancellation`` was triggered.
        public static let cancelled = Reason("cancelled")

        /// The reason's name, e.g. `destination exists`.
        public var description: String { name }
    }

    /// The kind of failure.
    public let reason: Reason
    /// One line saying what failed, where, and why.
    public let message: String

    /// Creates an error.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The one-line ``message``.
    public var description: String { message }
    /// The one-line ``message``, for Foundation's `localizedDescription`.
    public var errorDescription: String? { message }

    /// The cancellation error.
    static let cancelledError = SliceError(.cancelled, "slicing cancelled")

    /// Another component's error as one line: its description with line breaks turned into spaces.
    static func oneLine(_ error: any Error) -> String {
        String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// An error for a failed system call, with the `errno` text, e.g. "cannot write …: No space left on device".
    static func system(_ reason: Reason, _ what: String, errno code: Int32) -> SliceError {
        SliceError(reason, "\(what): \(String(cString: strerror(code)))")
    }
}
