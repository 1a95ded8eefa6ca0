import NIOCore
import NIOHTTP1

extension Router {
    /// Decides at its head whether an upload (`PUT /api/images/NAME[?replace=1]`) is taken, before a byte of its body
    /// is read: the job (state `receiving`) whose staging file the body streams into, or the refusal — 400 bad name
    /// or parameter, 401/403 token (``writeToken(query:exchange:name:)``), 411 no length, 413 declared over
    /// `--max-upload-mb`, 415 an empty body, 409 the name exists (without `replace=1`) or is being written.
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
            let error = RequestError(status: .methodNotAllowed, message: "PUT is for uploads: /api/images/NAME")
            return .refused(.error(error, extraHeaders: "Allow: GET, HEAD, OPTIONS\r\n", close: true))
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
        let chunked = head.headers.contains(name: "transfer-encoding")
        let lengths = head.headers[canonicalForm: "content-length"]
        let declared = lengths.first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard declared != nil || chunked else {
            return .refused(.error(RequestError(status: .lengthRequired, message: "an upload needs Content-Length (or chunked transfer)")))
        }
        let limit = services.configuration.maxUploadBytes
        if let declared, declared > limit {
            let error = RequestError(
                status: .contentTooLarge, message: "the upload's \(declared) bytes are over --max-upload-mb (\(limit >> 20) MiB); nothing was stored")
            return .refused(.error(error))
        }
        if declared == 0 {
            return .refused(.error(RequestError(status: .unsupportedMediaType, message: "an empty body is not an image")))
        }
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
