import HTTPCore
import NIOCore
import NIOHTTP1
import SliceJobs

/// The router is what answers a connection's requests (one per connection, on its event loop).
extension Router: Responder {
    func respond(to request: SimpleRequest, exchange: inout Exchange) -> Response {
        respond(uri: request.uri, exchange: &exchange)
    }

    /// Admits an upload (``admitUpload(_:exchange:)``) with its body streaming into the job's staging file
    /// (``UploadReceiver``).
    func admitBody(
        _ head: HTTPRequestHead, exchange: inout Exchange, eventLoop: any EventLoop, notify: @escaping (RequestError?) -> Void
    ) -> BodyAdmission {
        switch admitUpload(head, exchange: &exchange) {
        case .refused(let response):
            return .refused(response)
        case .admitted(let job):
            let receiver = UploadReceiver(
                job: job, queue: services.jobs, limit: services.configuration.maxUploadBytes, profile: services.blocks.jsonNoStore,
                threadPool: services.tiles.threadPool, loop: eventLoop, notify: notify)
            return .admitted(receiver)
        }
    }
}
