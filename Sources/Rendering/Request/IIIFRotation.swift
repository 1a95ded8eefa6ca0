import HTTPCore

/// The rotation parameter of a IIIF image request (Image API 3.0 §4.3): an optional `!` (mirror about the vertical
/// axis first) and clockwise degrees from 0 to 360.
package struct IIIFRotation: Equatable, Sendable {
    /// Whether the image is mirrored before it is rotated.
    package var mirrored: Bool
    /// Clockwise degrees, 0...360.
    package var degrees: Double

    /// Parses the rotation segment of a request.
    ///
    /// - Throws: ``RequestError`` 400 when it is not a decimal number from 0 to 360, optionally after `!`.
    package init(parsing text: Substring) throws(RequestError) {
        mirrored = text.utf8.first == UInt8(ascii: "!")
        guard let value = IIIFNumber.decimal(mirrored ? text.dropFirst() : text) else {
            throw .badRequest("rotation \(text) is malformed: expected degrees from 0 to 360, optionally after !")
        }
        guard value <= 360 else {
            throw .badRequest("rotation \(text) is out of range: expected 0 to 360 degrees")
        }
        degrees = value
    }

    /// The clockwise quarter turns this rotation makes (0…3; 360° is 0).
    ///
    /// - Throws: ``RequestError`` 501 for angles that are not multiples of 90° (the optional `rotationArbitrary`
    ///   feature, which this server does not implement).
    package func quarterTurns() throws(RequestError) -> Int {
        let turns = degrees / 90
        guard turns == turns.rounded() else {
            throw RequestError(
                status: .notImplemented, message: "rotation by \(IIIFNumber.text(degrees))° is not implemented: only multiples of 90°")
        }
        return Int(turns) % 4
    }
}
