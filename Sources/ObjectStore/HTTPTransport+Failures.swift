import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

extension HTTPTransport {
    /// A 2xx answer with a whole body, or the error its status means.
    func check(_ response: HTTPClient.Response, _ call: Call) -> Result<HTTPClient.Response, ObjectStoreError> {
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else { return .failure(statusError(response, call)) }
        if call.operation != "HEAD", let announced = response.headers.first(name: "content-length").flatMap(Int.init) {
            let received = response.body?.readableBytes ?? 0
            if received != announced {
                return .failure(
                    error(.unavailable, call, status: status, "body of \(received) bytes, Content-Length \(announced)", retryable: true))
            }
        }
        return .success(response)
    }

    /// The error of a non-2xx answer: its class by status, its detail the S3 `<Code>` when the body has one.
    func statusError(_ response: HTTPClient.Response, _ call: Call) -> ObjectStoreError {
        let status = Int(response.status.code)
        let code = response.body.flatMap { S3XMLElement.errorCode(in: $0) } ?? response.status.reasonPhrase
        let retryAfter = response.headers.first(name: "retry-after").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        switch status {
        case 404: return error(.notFound, call, status: status, code)
        case 401, 403: return error(.forbidden, call, status: status, code)
        case 412: return error(.changed, call, status: status, code)
        case 408: return error(.timeout, call, status: status, code, retryable: true)
        case 429, 500...599: return error(.unavailable, call, status: status, code, retryAfter: retryAfter, retryable: true)
        default: return error(.malformed, call, status: status, code)
        }
    }

    /// The error of a request that got no (whole) answer.
    func classify(_ failure: any Error, _ call: Call) -> ObjectStoreError {
        if let failure = failure as? ObjectStoreError { return failure }
        if let failure = failure as? HTTPClientError {
            switch failure {
            case .connectTimeout, .readTimeout, .writeTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return error(.timeout, call, "\(failure)", retryable: true)
            case .deadlineExceeded:
                return error(.timeout, call, "no answer within \(options.requestTimeout.nanoseconds / 1_000_000) ms", retryable: true)
            case .invalidURL, .emptyHost, .emptyScheme:
                return error(.malformed, call, "\(failure)")
            case .alreadyShutdown, .cancelled:
                return error(.unavailable, call, "\(failure)")
            default:
                return error(.unavailable, call, "\(failure)", retryable: true)
            }
        }
        if failure is ResponseAccumulator.ResponseTooBigError { return error(.malformed, call, "\(failure)") }
        // Refused, reset or closed connections (NIO's IOError, NIOConnectionError, ChannelError) and bodies cut short
        // (HTTPParserError at the end of the stream): the store is not there right now.
        let words = "\(failure)".split(whereSeparator: \.isNewline).first.map(String.init) ?? "network failure"
        return error(.unavailable, call, String(words.prefix(200)), retryable: true)
    }

    func error(
        _ kind: ObjectStoreError.Kind, _ call: Call, status: Int? = nil, _ detail: String, retryAfter: Int? = nil, retryable: Bool = false
    ) -> ObjectStoreError {
        ObjectStoreError(
            kind: kind, status: status, store: store, operation: call.operation, key: call.key, detail: detail, retryAfterSeconds: retryAfter,
            isRetryable: retryable)
    }
}
