import Testing
import TileGeometry

@Suite struct ViewportTests {
    static let badScales: [Double] = [0, -0.0, -1, -.leastNonzeroMagnitude, .nan, .infinity, -.infinity]

    @Test(arguments: ["width", "height", "zoomScale", "contentScale"], badScales)
    func refusesNonPositiveOrNonFiniteSizesAndScales(parameter: String, value: Double) {
        let error = #expect(throws: GeometryError.self) { try Self.viewport(setting: parameter, to: value) }
        #expect(error?.parameter == parameter)
        #expect(error?.message.hasPrefix(parameter + " ") == true)
    }

    @Test(arguments: ["x", "y"], [Double.nan, .infinity, -.infinity])
    func refusesNonFiniteOffsets(parameter: String, value: Double) {
        let error = #expect(throws: GeometryError.self) { try Self.viewport(setting: parameter, to: value) }
        #expect(error?.parameter == parameter)
    }

    @Test(arguments: [-1, Int.min])
    func refusesNegativePrefetch(prefetch: Int) {
        let error = #expect(throws: GeometryError.self) {
            try Viewport(x: 0, y: 0, width: 1, height: 1, zoomScale: 1, prefetch: prefetch)
        }
        #expect(error?.parameter == "prefetch")
    }

    @Test func acceptsExtremeButValidValues() throws {
        let viewport = try Viewport(
            x: -.greatestFiniteMagnitude, y: .greatestFiniteMagnitude, width: .leastNonzeroMagnitude, height: 1e308,
            zoomScale: 1e-300, contentScale: 1e300, prefetch: .max)
        #expect(viewport.prefetch == .max && viewport.contentScale == 1e300)
        let defaults = try Viewport(x: 1, y: 2, width: 3, height: 4, zoomScale: 5)
        #expect(defaults.contentScale == 1 && defaults.prefetch == 0)
    }

    /// A valid viewport with one parameter replaced by `value`.
    static func viewport(setting parameter: String, to value: Double) throws(GeometryError) -> Viewport {
        func pick(_ name: String, _ valid: Double) -> Double { name == parameter ? value : valid }
        return try Viewport(
            x: pick("x", 10), y: pick("y", -10), width: pick("width", 100), height: pick("height", 80),
            zoomScale: pick("zoomScale", 0.5), contentScale: pick("contentScale", 2))
    }
}
