/// Which images a route’s requests touch, for the access policy.
extension Route {
    /// What this route touches.
    var accessSubject: AccessSubject {
        switch self {
        case .tile(let name, _, _): .pixels(name: name)
        // A slide's properties and associated images (a label may carry a patient's name) need a token, like its
        // descriptor: no signed URLs are handed out for them.
        case .descriptor(let name), .visible(let name), .properties(let name), .associated(let name, _): .metadata(name: name)
        case .imageList: .list
        // A job's id is its capability; the job list and cancelling check the write token themselves.
        case .health, .metrics, .staticFile, .unknown, .jobs, .job, .jobEvents: .open
        }
    }
}
