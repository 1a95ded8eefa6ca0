import Dispatch
import Foundation
import Synchronization
import Testing

@testable import TileServer

/// Holds a slicing job where the server reports it viewable (``ServerConfiguration/onViewable``) until the test has
/// looked: the test waits for the hold, looks, then releases. A hold never outlasts a minute, so a failing test
/// cannot hang the server's shutdown.
final class SlicingGate: Sendable {
    private let held = Mutex<String?>(nil)
    private let arrived = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// The hook: records the job and blocks its slicing thread until ``release()``.
    var hold: @Sendable (String) -> Void {
        { [self] id in
            held.withLock { $0 = id }
            arrived.signal()
            _ = released.wait(timeout: .now() + 60)
        }
    }

    /// Blocks until a job is held, at most `seconds`; its id, or nil.
    func waitUntilHeld(seconds: Double) -> String? {
        guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        return held.withLock { $0 }
    }

    /// Lets the held job go on.
    func release() { released.signal() }
}

extension UploadFixture {
    /// Uploads `body` as image `name` (with a write token) to a real server on the fixture's ROOT and policy whose
    /// slicing jobs are held where they become viewable, and runs `look` with the server, the held job's id and the
    /// gate, once the job is held. `look` releases the gate to let the job go on; it is released when `look` ends in
    /// any case.
    func whileHeld(upload name: String, body: [UInt8], _ look: (Server, String, SlicingGate) async throws -> Void) async throws {
        let token = try writeToken()
        let gate = SlicingGate()
        var configuration = secured.configuration
        configuration.onViewable = gate.hold
        try await withServer(secured.pyramids, configuration) { server in
            defer { gate.release() }
            let response = try await blocking { try UploadFixture.put(server, name, body: body, token: token) }
            let id = try #require((try response.json() as? [String: Any])?["id"] as? String)
            let held = try await blocking { gate.waitUntilHeld(seconds: 60) }
            try #require(held == id, "the job was held where it became viewable")
            try await look(server, id, gate)
        }
    }
}
