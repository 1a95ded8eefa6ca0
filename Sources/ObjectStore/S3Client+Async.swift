import Foundation
import NIOCore

extension S3Client {
    /// ``shutdown()``, awaited.
    public func shutdown() async throws {
        try await transport.client.shutdown()
    }

    /// ``get(_:ifMatch:on:)``, awaited.
    public func get(_ key: String, ifMatch: String? = nil) async throws -> ByteBuffer {
        try await get(key, ifMatch: ifMatch, on: eventLoopGroup.any()).get()
    }

    /// ``put(_:body:contentType:on:)``, awaited; gives the ETag.
    @discardableResult
    public func put(_ key: String, body: ByteBuffer, contentType: String? = nil) async throws -> String {
        try await put(key, body: body, contentType: contentType, on: eventLoopGroup.any()).get()
    }

    /// ``delete(_:on:)``, awaited.
    public func delete(_ key: String) async throws {
        try await delete(key, on: eventLoopGroup.any()).get()
    }

    /// ``createBucket(on:)``, awaited.
    public func createBucket() async throws {
        try await createBucket(on: eventLoopGroup.any()).get()
    }

    /// ``list(prefix:pageSize:on:)``, awaited.
    public func list(prefix: String, pageSize: Int) async throws -> [ObjectInfo] {
        try await list(prefix: prefix, pageSize: pageSize, on: eventLoopGroup.any()).get()
    }

    /// ``createUpload(_:contentType:on:)``, awaited; gives the upload id.
    public func createUpload(_ key: String, contentType: String? = nil) async throws -> String {
        try await createUpload(key, contentType: contentType, on: eventLoopGroup.any()).get()
    }

    /// ``uploadPart(_:uploadID:partNumber:body:on:)``, awaited.
    public func uploadPart(_ key: String, uploadID: String, partNumber: Int, body: ByteBuffer) async throws -> S3CompletedPart {
        try await uploadPart(key, uploadID: uploadID, partNumber: partNumber, body: body, on: eventLoopGroup.any()).get()
    }

    /// ``completeUpload(_:uploadID:parts:on:)``, awaited; gives the object's ETag.
    @discardableResult
    public func completeUpload(_ key: String, uploadID: String, parts: [S3CompletedPart]) async throws -> String {
        try await completeUpload(key, uploadID: uploadID, parts: parts, on: eventLoopGroup.any()).get()
    }

    /// ``abortUpload(_:uploadID:on:)``, awaited.
    public func abortUpload(_ key: String, uploadID: String) async throws {
        try await abortUpload(key, uploadID: uploadID, on: eventLoopGroup.any()).get()
    }

    /// ``pendingUploads(prefix:on:)``, awaited.
    public func pendingUploads(prefix: String = "") async throws -> [S3PendingUpload] {
        try await pendingUploads(prefix: prefix, on: eventLoopGroup.any()).get()
    }

    /// ``sweepUploads(prefix:startedBefore:on:)``, awaited; gives how many were aborted.
    @discardableResult
    public func sweepUploads(prefix: String = "", startedBefore cutoff: Date) async throws -> Int {
        try await sweepUploads(prefix: prefix, startedBefore: cutoff, on: eventLoopGroup.any()).get()
    }
}
