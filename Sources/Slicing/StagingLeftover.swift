import Foundation

/// A staging folder a killed slice left behind, which ``StagingSweep`` removed (or failed to remove).
public struct StagingLeftover: Sendable, Hashable, CustomStringConvertible {
    /// The folder's name in the output folder, e.g. `.photo.tiler-ab12cd`.
    public let folder: String
    /// Why it was taken for a leftover, e.g. `left by process 4242 on this host, which is gone`.
    public let why: String
    /// Why it could not be removed (the `errno` text), or nil when it was.
    public let failure: String?

    /// Creates a record.
    public init(folder: String, why: String, failure: String? = nil) {
        self.folder = folder
        self.why = why
        self.failure = failure
    }

    /// Whether the folder is gone.
    public var removed: Bool { failure == nil }

    /// One line: `removed .photo.tiler-ab12cd, left by process 4242 on this host, which is gone`, or
    /// `cannot remove .photo.tiler-ab12cd (left by …): Permission denied`.
    public var description: String {
        if let failure { return "cannot remove \(folder) (\(why)): \(failure)" }
        return "removed \(folder), \(why)"
    }
}
