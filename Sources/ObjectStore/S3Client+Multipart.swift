import Foundation
import NIOCore

/// A part uploaded to a multipart upload: its number and the ETag the store gave it, as completing needs them.
public struct S3CompletedPart: Sendable, Equatable {
    /// 1 to 10,000.
    public let partNumber: Int
    /// The part's ETag (with its quotes).
    public let etag: String

    /// Creates a part record.
    public init(partNumber: Int, etag: String) {
        self.partNumber = partNumber
        self.etag = etag
    }
}

/// A multipart upload that was started and neither completed nor aborted.
public struct S3PendingUpload: Sendable, Equatable {
    /// The key it will write, relative to the client's prefix.
    public let key: String
    /// The store's id of the upload.
    public let uploadID: String
    /// When it was started, if the store said.
    public let initiated: Date?
}

extension S3Client {
    /// Starts a multipart upload to `key`; gives its upload id. Parts of at least 5 MiB (but the last) are then sent with
    /// ``uploadPart(_:uploadID:partNumber:body:on:)``; the object appears, whole, only on
    /// ``completeUpload(_:uploadID:parts:on:)``. Not retried (a retry could leave a second upload).
    public func createUpload(_ key: String, contentType: String? = nil, on eventLoop: any EventLoop) -> EventLoopFuture<String> {
        let call = HTTPTransport.Call(operation: "CREATE-UPLOAD", key: key, idempotent: false)
        let headers = contentType.map { [("content-type", $0)] } ?? []
        return send(call, .POST, key: key, query: [("uploads", "")], headers: headers, on: eventLoop).flatMapThrowing { response in
            guard let root = S3XMLElement.parse(response.body ?? ByteBuffer()), root.name == "InitiateMultipartUploadResult",
                let id = root.value("UploadId"), !id.isEmpty
            else { throw self.transport.error(.malformed, call, status: 200, "no UploadId in the answer") }
            return id
        }
    }

    /// Sends part `partNumber` (1…10,000) of an upload; gives the record completing needs.
    public func uploadPart(
        _ key: String, uploadID: String, partNumber: Int, body: ByteBuffer, on eventLoop: any EventLoop
    ) -> EventLoopFuture<S3CompletedPart> {
        precondition((1...10_000).contains(partNumber), "S3 part numbers are 1 to 10,000")
        let call = HTTPTransport.Call(operation: "UPLOAD-PART \(partNumber)", key: key)
        let query = [("partNumber", String(partNumber)), ("uploadId", uploadID)]
        return send(call, .PUT, key: key, query: query, body: body, on: eventLoop).flatMapThrowing { response in
            guard let etag = response.headers.first(name: "etag"), !etag.isEmpty else {
                throw self.transport.error(.malformed, call, status: 200, "no ETag for the part")
            }
            return S3CompletedPart(partNumber: partNumber, etag: etag)
        }
    }

    /// Completes an upload from its parts (in part-number order): the object appears whole; gives its ETag. A 200 whose
    /// body is an `<Error>` (S3 sends those when completing fails late) is an error.
    public func completeUpload(
        _ key: String, uploadID: String, parts: [S3CompletedPart], on eventLoop: any EventLoop
    ) -> EventLoopFuture<String> {
        let call = HTTPTransport.Call(operation: "COMPLETE-UPLOAD", key: key, idempotent: false)
        var xml = "<CompleteMultipartUpload>"
        for part in parts.sorted(by: { $0.partNumber < $1.partNumber }) {
            xml += "<Part><PartNumber>\(part.partNumber)</PartNumber><ETag>\(Self.escapeXML(part.etag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        let body = ByteBuffer(string: xml)
        return send(call, .POST, key: key, query: [("uploadId", uploadID)], headers: [("content-type", "application/xml")], body: body, on: eventLoop)
            .flatMapThrowing { response in
                let document = S3XMLElement.parse(response.body ?? ByteBuffer())
                if let document, document.name == "Error" {
                    throw self.transport.error(.unavailable, call, status: 200, document.value("Code") ?? "Error")
                }
                guard let document, document.name == "CompleteMultipartUploadResult" else {
                    throw self.transport.error(.malformed, call, status: 200, "not a CompleteMultipartUploadResult document")
                }
                return document.value("ETag") ?? ""
            }
    }

    /// Aborts an upload and frees its parts; an upload already gone (completed, aborted, swept) is no error.
    public func abortUpload(_ key: String, uploadID: String, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let call = HTTPTransport.Call(operation: "ABORT-UPLOAD", key: key)
        return send(call, .DELETE, key: key, query: [("uploadId", uploadID)], on: eventLoop).map { _ in }.flatMapError { error in
            guard let error = error as? ObjectStoreError, error.kind == .notFound else { return eventLoop.makeFailedFuture(error) }
            return eventLoop.makeSucceededVoidFuture()
        }
    }

    /// The uploads under `prefix` (relative) that were started and neither completed nor aborted, all pages.
    public func pendingUploads(prefix: String, on eventLoop: any EventLoop) -> EventLoopFuture<[S3PendingUpload]> {
        pendingUploads(prefix: prefix, keyMarker: nil, uploadIDMarker: nil, collected: [], on: eventLoop)
    }

    /// Aborts every pending upload under `prefix` started before `cutoff` (leftovers of killed writers); gives how many.
    public func sweepUploads(prefix: String, startedBefore cutoff: Date, on eventLoop: any EventLoop) -> EventLoopFuture<Int> {
        pendingUploads(prefix: prefix, on: eventLoop).flatMap { uploads in
            let stale = uploads.filter { ($0.initiated ?? .distantPast) < cutoff }
            let aborts = stale.map { self.abortUpload($0.key, uploadID: $0.uploadID, on: eventLoop) }
            return EventLoopFuture.andAllSucceed(aborts, on: eventLoop).map { stale.count }
        }
    }

    private func pendingUploads(
        prefix: String, keyMarker: String?, uploadIDMarker: String?, collected: [S3PendingUpload], on eventLoop: any EventLoop
    ) -> EventLoopFuture<[S3PendingUpload]> {
        let root = configuration.location.prefix
        var query = [("uploads", ""), ("prefix", root + prefix)]
        if let keyMarker { query.append(("key-marker", keyMarker)) }
        if let uploadIDMarker { query.append(("upload-id-marker", uploadIDMarker)) }
        let call = HTTPTransport.Call(operation: "LIST-UPLOADS", key: prefix.isEmpty ? nil : prefix)
        return send(call, .GET, key: nil, query: query, on: eventLoop).flatMap { response in
            guard let document = S3XMLElement.parse(response.body ?? ByteBuffer()), document.name == "ListMultipartUploadsResult" else {
                return eventLoop.makeFailedFuture(self.transport.error(.malformed, call, status: 200, "not a ListMultipartUploadsResult document"))
            }
            let uploads = document.children("Upload").compactMap { upload -> S3PendingUpload? in
                guard let key = upload.value("Key"), key.hasPrefix(root), let id = upload.value("UploadId") else { return nil }
                return S3PendingUpload(
                    key: String(key.dropFirst(root.count)), uploadID: id, initiated: upload.value("Initiated").flatMap(CivilTime.parseISO8601))
            }
            let all = collected + uploads
            guard document.value("IsTruncated") == "true", let nextKey = document.value("NextKeyMarker"), !nextKey.isEmpty else {
                return eventLoop.makeSucceededFuture(all)
            }
            return self.pendingUploads(
                prefix: prefix, keyMarker: nextKey, uploadIDMarker: document.value("NextUploadIdMarker"), collected: all, on: eventLoop)
        }
    }

    private static func escapeXML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
