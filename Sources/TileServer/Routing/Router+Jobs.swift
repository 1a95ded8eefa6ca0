import Glibc
import HTTPCore
import NIOCore
import NIOHTTP1
import SliceJobs

extension Router {
    /// `GET /api/jobs` (write token: the jobs of the images it grants), `GET /api/jobs/ID`, `GET /api/jobs/ID/events` and `DELETE /api/jobs/ID` (write
    /// token). A job's id is its capability: reading one needs nothing else (an `EventSource` cannot send headers).
    func jobResponse(_ route: Route, query: Substring, exchange: Exchange, isDelete: Bool) -> Response {
        let jobs = services.jobs
        switch route {
        case .jobs:
            guard !isDelete else { return .error(.badRequest("DELETE needs a job: /api/jobs/ID")) }
            let token: AccessToken
            switch writeToken(query: query, exchange: exchange) {
            case .success(let granted): token = granted
            case .failure(let refusal): return refusal.response
            }
            // Only the jobs of images the token may write: another's names (private ones among them) and job ids
            // (each a capability) are not for it.
            let (current, earlier) = jobs.all()
            let items = current.filter { token.grants($0.name) }.map(\.json) + earlier.filter { token.grants($0.name) }.map(\.json)
            let body = "{\"jobs\":[" + items.joined(separator: ",") + "]}"
            return .ok(ByteBuffer(string: body), profile: services.blocks.jsonNoStore)
        case .job(let id):
            guard let job = jobs.job(id: id) else {
                // A job of an earlier run (a client that polled it across a restart learns how it ended).
                guard !isDelete, let record = jobs.earlierRecord(id: id) else { return .error(.notFound("no job \(id)")) }
                return .ok(ByteBuffer(string: record.json), profile: services.blocks.jsonNoStore)
            }
            if isDelete {
                if let refusal = writeTokenRefusal(query: query, exchange: exchange, name: job.name) { return refusal }
                jobs.cancel(job)
            }
            return .ok(ByteBuffer(string: job.json), profile: services.blocks.jsonNoStore)
        case .jobEvents(let id):
            guard !isDelete else { return .error(RequestError(status: .methodNotAllowed, message: "an event stream cannot be deleted")) }
            guard let job = jobs.job(id: id) else {
                // An earlier run's job has ended: its one last event (an EventSource that reconnected across a restart
                // learns the end, as it would have from a live stream).
                guard let record = jobs.earlierRecord(id: id) else { return .error(.notFound("no job \(id)")) }
                let profile = ResponseProfile(contentType: "text/event-stream", cacheControl: ResponseProfile.noStore, cors: services.blocks.cors)
                return .ok(SliceJob.event(record.json), profile: profile)
            }
            return .events(job)
        default:
            return .error(.notFound("nothing here"))
        }
    }

    /// Answers `DELETE`: only a job (`/api/jobs/ID`) may be deleted (cancelled); elsewhere 405.
    func delete(_ head: HTTPRequestHead, exchange: inout Exchange) -> Response {
        let target: RequestTarget
        let route: Route
        switch routed(head.uri, exchange: &exchange) {
        case .success(let found): (target, route) = found
        case .failure(let error): return .error(error)
        }
        guard case .job = route else {
            return refuseMethod(head, exchange: &exchange, message: "only a job (/api/jobs/ID) can be deleted")
        }
        return jobResponse(route, query: target.query, exchange: exchange, isDelete: true)
    }

    /// Checks the write-scoped token the request presents (and, given `name`, that it covers that image): nil when it
    /// passes, else the refusal — 403 when the server takes no uploads (no access keys), 401 without a valid token,
    /// 403 for a token of another scope or other images.
    func writeTokenRefusal(query: Substring, exchange: Exchange, name: String? = nil) -> Response? {
        switch writeToken(query: query, exchange: exchange) {
        case .success(let token):
            guard let name, !token.grants(name) else { return nil }
            return AccessRefusal.wrongImage.response
        case .failure(let refusal):
            return refusal.response
        }
    }

    /// The write-scoped token the request presents, verified, or why there is none (see ``writeTokenRefusal(query:exchange:name:)``).
    private func writeToken(query: Substring, exchange: Exchange) -> Result<AccessToken, WriteRefusal> {
        guard let policy = services.writeAccess else {
            let error = RequestError(status: .forbidden, message: "uploads and jobs are off: the server has no access keys (start it with --access)")
            return .failure(WriteRefusal(response: .error(error)))
        }
        guard let credential = Self.credential(query: QueryString(text: query), exchange: exchange) else {
            return .failure(WriteRefusal(response: AccessRefusal.missing.response))
        }
        do throws(AccessRefusal) {
            let token = try policy.verify(token: credential, now: WallClock.seconds())
            guard token.scope == .write else { throw .wrongScope }
            return .success(token)
        } catch {
            return .failure(WriteRefusal(response: error.response))
        }
    }
}

/// A write request refused: the answer to send.
private struct WriteRefusal: Error {
    let response: Response
}
