import HTTPCore
import NIOCore
import NIOHTTP1
import SliceJobs

extension Router {
    /// Decides at its head whether an upload (`PUT /api/images/NAME[?replace=1]`) is taken, before a byte of its body
    /// is read, once ``RequestAdmission`` has taken its framing and length: the job (state `receiving`) whose staging
    /// file the body streams into, or the refusal — 405 not an upload's URL, 400 bad name or parameter, 401/403 token
    /// (``writeTokenRefusal(query:exchange:name:)``), 409 the name exists (without `replace=1`) or is being written.
    func admitUpload(_ head: HTTPRequestHead, exchange: inout Exchange) -> UploadAdmission {
        exchange.route = .upload
        let target: RequestTarget
        do {
            target = try RequestTarget(head.uri, maxPathBytes: services.configuration.maxPathBytes)
        } catch {
            return .refused(.error(error))
        }
        let prefix = "/api/images/"
        guard target.path.hasPrefix(prefix) else {
            return .refused(refuseMethod(head, exchange: &exchange, message: "PUT is for uploads: /api/images/NAME"))
        }
        // Uploads are sliced into ROOT: a server of object-store roots alone has none.
        guard services.catalog.scansFolder else {
            let message = "this server serves object stores only: uploads need a folder (tiler serve ROOT s3://…)"
            return .refused(.error(RequestError(status: .conflict, message: message)))
        }
        let name = target.path.dropFirst(prefix.count)
        let query = QueryString(text: target.query)
        let replace: Bool
        switch query.value(named: "replace") {
        case nil, "0": replace = false
        case "1": replace = true
        case let other?: return .refused(.error(.badRequest("replace must be 0 or 1 (got \(other))")))
        }
        if let refusal = writeTokenRefusal(query: target.query, exchange: exchange, name: String(name)) { return .refused(refusal) }
        if let problem = ImageName.problem(name, maxDepth: services.configuration.maxScanDepth) {
            return .refused(.error(.badRequest(problem)))
        }
        // Its framing and declared length were admitted (``RequestAdmission``): a length, or chunked.
        let chunked = head.headers.contains(name: "transfer-encoding")
        let declared = head.headers.first(name: "content-length").flatMap(RequestAdmission.declaredLength)
        switch services.jobs.add(name: String(name), source: .upload, replace: replace, input: nil, state: .receiving) {
        case .success(let job):
            job.update { $0.bytesExpected = chunked ? nil : declared }
            return .admitted(job)
        case .failure(let error):
            return .refused(.error(error))
        }
    }
}

/// What ``Router/admitUpload(_:exchange:)`` decided.
enum UploadAdmission {
    /// The body streams into this job's staging file.
    case admitted(SliceJob)
    /// Refused before a byte was read: the answer (the connection then closes).
    case refused(Response)
}
