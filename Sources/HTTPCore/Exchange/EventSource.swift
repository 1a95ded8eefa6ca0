import NIOCore

/// What a Server-Sent Events answer follows (``Response/events(_:)``, written by ``EventStream``): something that
/// changes, tells when it has, and says what it is now as one event.
package protocol EventSource: AnyObject, Sendable {
    /// Calls `onChange` (from any thread) after each change, until ``unwatch(_:)``; returns the watch's key.
    func watch(_ onChange: @escaping @Sendable () -> Void) -> UInt64
    /// Stops the watch `key`.
    func unwatch(_ key: UInt64)
    /// The current state as one event's bytes (`event: …` and `data: …` lines and the blank line), and whether it is
    /// the last (the source will not change again; the stream then ends).
    func currentEvent() -> (event: ByteBuffer, isLast: Bool)
}
