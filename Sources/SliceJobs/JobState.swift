/// Where a slicing job is in its life (the `state` of the job's JSON).
public enum JobState: String, Sendable, CaseIterable {
    /// An upload's body is arriving.
    case receiving
    /// Complete, waiting for a slicing thread.
    case queued
    /// Being sliced.
    case slicing
    /// Published: the image is served under its final version.
    case done
    /// Failed (the job's `error` says why); nothing was stored and the catalog is as it was.
    case failed
    /// Cancelled by `DELETE`; nothing was stored.
    case cancelled
    /// The server stopped during the job (found at the next start); its leftovers were removed.
    case interrupted

    /// Whether the job is over (no further change).
    public var isTerminal: Bool {
        switch self {
        case .done, .failed, .cancelled, .interrupted: true
        case .receiving, .queued, .slicing: false
        }
    }
}

/// Where a job's image came from.
public enum JobSource: String, Sendable {
    /// `PUT /api/images/NAME`.
    case upload
    /// A file that appeared in the `--inbox` folder.
    case inbox
}
