/// Memory a response body holds against a budget until the socket has taken it: the connection releases it once the
/// body is written, or the write failed.
package protocol BodyReservation: Sendable {
    /// Gives the memory back. Safe to call more than once, from any thread.
    func release()
}
