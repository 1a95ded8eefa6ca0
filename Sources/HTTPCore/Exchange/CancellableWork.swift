/// Work producing an answer elsewhere (a render on its thread) that the connection stops when its client goes.
package protocol CancellableWork: AnyObject, Sendable {
    /// Stops the work; its answer is no longer wanted. Safe to call more than once, from any thread.
    func cancel()
}
